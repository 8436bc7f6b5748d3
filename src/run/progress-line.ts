import { stripVTControlCharacters } from 'node:util';
import { count, duration } from '../number-text.js';
import type { ProgressFigures } from './run-progress.js';

/**
 * One field of the progress line. When the line is wider than the terminal, the field with the highest `drop` goes
 * first, then the next; `drop: 0` is never dropped (the row count).
 */
export interface ProgressField {
  text: string;
  drop: number;
}

/** How soon each field goes when the line is too wide: the least useful first, the count and percent last. */
export const DROP_ORDER = { pace: 8, busy: 7, inFlight: 6, eta: 5, rate: 4, invalid: 3, failed: 2, percent: 1, count: 0 } as const;

const SEPARATOR = ' · ';

/** The fields that fit in `width` columns (colour codes take none), joined; whole fields only, never one cut. No width: all of them. */
export function fitFields(fields: readonly ProgressField[], width: number | undefined): string {
  let kept = [...fields];
  const widthOf = (list: readonly ProgressField[]): number => stripVTControlCharacters(list.map((field) => field.text).join(SEPARATOR)).length;
  while (width !== undefined && widthOf(kept) > width) {
    const least = kept.reduce<ProgressField | undefined>((worst, field) => (field.drop > (worst?.drop ?? 0) ? field : worst), undefined);
    if (least === undefined) break;
    kept = kept.filter((field) => field !== least);
  }
  return kept.map((field) => field.text).join(SEPARATOR);
}

/** The run's flow now: requests in flight and their limit, the pace, and the service's pushback so far. */
export interface FlowFigures {
  inFlight: number;
  window: number;
  pace: number | undefined;
  throttled: number;
  overloaded: number;
}

/** The colours the fields are drawn in: the CLI passes its own. */
export interface FieldTones {
  red: (text: string) => string;
  yellow: (text: string) => string;
  dim: (text: string) => string;
}

/** The fields of a progress line: done/total or done, percent, rows/s, failures, the flow and the ETA. */
export function progressFields(figures: ProgressFigures, flow: FlowFigures | undefined, tone: FieldTones): ProgressField[] {
  const { done, total, fraction, rate, failed, invalid, etaMs } = figures;
  const parts: ProgressField[] = [{ text: total === undefined ? `${count(done)} rows` : `${count(done)}/${count(total)} rows`, drop: DROP_ORDER.count }];
  const add = (text: string, drop: number): number => parts.push({ text, drop });
  if (fraction !== undefined) add(`${Math.floor(fraction * 100)}%`, DROP_ORDER.percent);
  add(`${count(Math.round(rate))} rows/s`, DROP_ORDER.rate);
  if (failed > 0) add(tone.red(`${count(failed)} failed`), DROP_ORDER.failed);
  if (invalid > 0) add(tone.yellow(`${count(invalid)} invalid`), DROP_ORDER.invalid);
  if (flow !== undefined) {
    add(`${count(flow.inFlight)}/${count(flow.window)} in flight`, DROP_ORDER.inFlight);
    if (flow.pace !== undefined) add(`paced ${count(Math.round(flow.pace))}/s`, DROP_ORDER.pace);
    if (flow.throttled + flow.overloaded > 0) add(tone.dim(`busy: ${count(flow.throttled)} throttled, ${count(flow.overloaded)} overloaded`), DROP_ORDER.busy);
  }
  if (etaMs !== undefined) add(`ETA ${duration(etaMs)}`, DROP_ORDER.eta);
  return parts;
}
