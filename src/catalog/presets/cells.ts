import { namedSetting, UsageError, type Location } from '../../errors.js';
import { isRecordError, type Draft, type RecordItem } from '../types.js';
import { unreadableDraft } from '../mapping/index.js';
import { listColumns } from '../mapping/header.js';
import type { PresetKind } from './preset-kind.js';

/** A CSV cell, trimmed; '' when the column is absent or the cell empty. */
export function cell(fields: Record<string, unknown>, column: string): string {
  const raw = fields[column];
  return typeof raw === 'string' ? raw.trim() : '';
}

/** `Green / S` -> `green-s`: lower case, runs of anything but letters and digits as one dash. */
export function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/** The items in first-seen order, without repeats and empties. */
export function unique(items: Iterable<string>): string[] {
  const seen = new Set<string>();
  for (const item of items) if (item !== '') seen.add(item);
  return [...seen];
}

const CONDITIONS: Record<string, string> = { new: 'NEW', used: 'USED', refurbished: 'REFURBISHED' };

/** Google Shopping's (and PrestaShop's) condition words to the upper-case form of the condition setting; other text unchanged. */
export function conditionOf(value: string): string | undefined {
  if (value === '') return undefined;
  return CONDITIONS[value.toLowerCase()] ?? value;
}

/** A preset needs its export's key columns (a header's, or a record's keys); without them the file is not that export. */
export function requireColumns(kind: PresetKind, source: string, columns: readonly string[]): void {
  const missing = kind.required.filter((column) => !columns.includes(column));
  if (missing.length === 0) return;
  const setting = { key: 'preset', value: kind.name };
  throw new UsageError((name) => `${namedSetting(setting, name)}: ${source} has no ${missing.map((c) => JSON.stringify(c)).join(', ')} column; is it a ${kind.name} product export?`, {
    hint: `its columns: ${listColumns(columns)}`,
    setting,
  });
}

/** A readable row of an export, or the draft that reports a record that could not be read. */
export type CheckedRow = { fields: Record<string, unknown>; location: Location; draft?: undefined } | { draft: Draft };

/** The records of an export with its columns checked at the first readable one (requireColumns), in order. */
export async function* checkedRows(kind: PresetKind, records: AsyncIterable<RecordItem>): AsyncIterable<CheckedRow> {
  let checked = false;
  for await (const item of records) {
    if (isRecordError(item)) {
      yield { draft: unreadableDraft(item) };
      continue;
    }
    if (!checked) {
      requireColumns(kind, item.location.source, Object.keys(item.fields));
      checked = true;
    }
    yield item;
  }
}

/**
 * The drafts of an export whose rows are judged one by one (nothing held between rows): its columns checked at the
 * first record, an unreadable record reported as it is, every other row made a draft by `draftOf`.
 */
export async function* rowByRow(kind: PresetKind, records: AsyncIterable<RecordItem>, draftOf: (fields: Record<string, unknown>, location: Location) => Draft): AsyncIterable<Draft> {
  for await (const row of checkedRows(kind, records)) yield row.draft ?? draftOf(row.fields, row.location);
}
