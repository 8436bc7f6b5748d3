/** Polls `check` until it holds; past `timeoutMs` throws, naming `what` and, when given, the state it was in. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000, describeState?: () => string | Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${describeState === undefined ? '' : `: ${await describeState()}`}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
