/** Summaries of repeated measurements: median with min-max, as the report quotes them. */

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** { median, min, max, runs } of a list of numbers. */
export function summary(values) {
  return {
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    runs: values,
  };
}

/** Ratios of paired runs (A[i] / B[i]) summarised, beside the ratio of the medians. */
export function pairedRatio(a, b) {
  const pairs = a.map((value, i) => value / b[i]);
  return { ...summary(pairs), ofMedians: median(a) / median(b) };
}

export function round(value, digits = 0) {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** "12,345 (11,900-12,800)" */
export function fmtRange(s, digits = 0, unit = '') {
  if (!s) return 'n/a';
  const f = (v) => `${round(v, digits).toLocaleString('en-US')}${unit}`;
  return s.min === s.max ? f(s.median) : `${f(s.median)} (${f(s.min)}-${f(s.max)})`;
}
