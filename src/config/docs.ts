import { OPTIONS } from './options.js';

/** The README's settings table, generated from the one options table (a test keeps the README in step). */
export function settingsTable(): string {
  const rows = OPTIONS.map((o) => {
    const flag = o.flag ? `\`${o.flag.split(' ')[0]}\`` : '(profile only)';
    const fallback = o.default === undefined ? '' : `\`${String(o.default)}\``;
    return `| \`${o.key}\` | ${flag} | \`${o.env}\` | ${fallback} | ${o.description} |`;
  });
  return ['| key | flag | env | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
