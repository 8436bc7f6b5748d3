import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, parseValue, type ValueSpec } from '../../../src/options/index.js';

describe('parseDuration: one duration parser, units everywhere, bare numbers in the unit documented before', () => {
  it.each([
    ['500ms', 'ms', 500],
    ['30s', 'ms', 30_000],
    ['2m', 's', 120_000],
    ['1h', 's', 3_600_000],
    ['1.5s', 'ms', 1500],
    ['.5s', 'ms', 500],
    [' 30 s ', 'ms', 30_000],
    ['30000', 'ms', 30_000],
    ['60', 's', 60_000],
    ['0', 's', 0],
  ] as const)('%j (bare %s) -> %d ms', (raw, bare, ms) => {
    expect(parseDuration(raw, bare)).toBe(ms);
  });

  it.each(['5x', '', ' ', '-5s', '1e3', '0x10', '30 sec', 's', '1.s', '5m5s', 'Infinity', 'NaN'])('refuses %j, saying how to write one', (raw) => {
    expect(() => parseDuration(raw, 'ms')).toThrow(`'${raw}' is not a duration: use 500ms, 30s or 2m`);
  });

  it('quotes at most 40 characters of what was typed', () => {
    expect(() => parseDuration('x'.repeat(1000), 'ms')).toThrow(`'${'x'.repeat(40)}…' is not a duration`);
  });
});

describe('formatDuration: the largest unit that holds it whole', () => {
  it.each([
    [30_000, '30s'],
    [120_000, '2m'],
    [3_600_000, '1h'],
    [90_000, '90s'],
    [500, '500ms'],
    [1500, '1500ms'],
    [0, '0ms'],
  ])('%d -> %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('parseValue: an option value as its command reads it', () => {
  const timeout: ValueSpec = { kind: 'duration', bare: 'ms', unit: 'ms', min: '100ms', max: '10m' };
  const giveUp: ValueSpec = { kind: 'duration', bare: 's', unit: 's', min: '1s', max: '24h' };
  const latency: ValueSpec = { kind: 'duration', bare: 'ms', unit: 'ms', min: '0ms', max: '1h', range: true };

  it('a duration in the unit the command reads, bounded', () => {
    expect(parseValue(timeout, '30s')).toBe(30_000);
    expect(parseValue(timeout, '30000')).toBe(30_000);
    expect(parseValue(giveUp, '2m')).toBe(120);
    expect(parseValue(giveUp, '60')).toBe(60);
    expect(() => parseValue(timeout, '50ms')).toThrow("must be from 100ms to 10m, got '50ms'");
    expect(() => parseValue(timeout, '11m')).toThrow('must be from 100ms to 10m');
    expect(() => parseValue(giveUp, '1500ms')).toThrow("must be a whole number of seconds, got '1500ms'");
    expect(() => parseValue(timeout, '5x')).toThrow("'5x' is not a duration: use 500ms, 30s or 2m");
  });

  it('a duration or a MIN-MAX range of two (the sandbox latency)', () => {
    expect(parseValue(latency, '20')).toBe(20);
    expect(parseValue(latency, '10-50')).toEqual({ min: 10, max: 50 });
    expect(parseValue(latency, '20ms-2s')).toEqual({ min: 20, max: 2000 });
    expect(parseValue(latency, '7 - 7')).toEqual({ min: 7, max: 7 });
    expect(() => parseValue(latency, '50-10')).toThrow('MIN must not be above MAX');
    expect(() => parseValue(latency, '-5')).toThrow('is not a duration');
    expect(() => parseValue(latency, 'fast')).toThrow("'fast' is not a duration");
  });

  it('whole numbers (with "all" where the option takes it) and rates', () => {
    const maxErrors: ValueSpec = { kind: 'whole', placeholder: 'n', min: 0, max: 100, all: true };
    expect(parseValue(maxErrors, '7')).toBe(7);
    expect(parseValue(maxErrors, 'all')).toBe(Number.POSITIVE_INFINITY);
    expect(() => parseValue(maxErrors, '0x10')).toThrow('must be a whole number from 0 to 100 or "all"');
    expect(() => parseValue({ kind: 'whole', placeholder: 'n', min: 1, max: 5 }, 'all')).toThrow('must be a whole number from 1 to 5');
    expect(parseValue({ kind: 'rate', placeholder: 'n' }, '0.5')).toBe(0.5);
    expect(() => parseValue({ kind: 'rate', placeholder: 'n' }, '0')).toThrow('requests per second > 0');
  });
});
