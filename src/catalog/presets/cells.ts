import { namedSetting, UsageError } from '../../errors.js';
import { listColumns } from '../mapping/header.js';

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

/** A preset needs its export's key columns; without them the file is not that export. */
export function requireColumns(preset: string, source: string, fields: Record<string, unknown>, required: readonly string[]): void {
  const columns = Object.keys(fields);
  const missing = required.filter((column) => !columns.includes(column));
  if (missing.length === 0) return;
  const setting = { key: 'preset', value: preset };
  throw new UsageError((name) => `${namedSetting(setting, name)}: ${source} has no ${missing.map((c) => JSON.stringify(c)).join(', ')} column; is it a ${preset} product export?`, {
    hint: `its columns: ${listColumns(columns)}`,
    setting,
  });
}
