/** Numbers and durations as people read them, in every text the tool writes: `1,234,567`, `1m 23s`. */

/**
 * 1234567 -> `1,234,567`, as `toLocaleString('en-US')` writes it (at most three decimals), without loading ICU's
 * locale data (some 18 ms and 7 MB) for a comma.
 */
export function count(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const rounded = Math.round(Math.abs(value) * 1000) / 1000;
  const [whole = '', fraction] = String(rounded).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${value < 0 ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** 83_000 ms -> `1m 23s`; under ten seconds with a tenth; above an hour in hours and minutes. */
export function duration(ms: number): string {
  if (ms < 9_950) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}
