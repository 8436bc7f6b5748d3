import { expect } from 'vitest';

type ErrorClass<T extends Error> = abstract new (...args: never[]) => T;

/** The error `call` throws, checked to be a `type`: the test fails when it throws nothing or something else. */
export function thrown<T extends Error>(type: ErrorClass<T>, call: () => unknown): T {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error(`expected a ${type.name}`);
}

/** The error `promise` rejects with, checked to be a `type`: the test fails when it resolves or rejects otherwise. */
export async function rejection<T extends Error>(type: ErrorClass<T>, promise: Promise<unknown>): Promise<T> {
  const error: unknown = await promise.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}
