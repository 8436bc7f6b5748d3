import { OPTIONS } from '../config/options.js';
import { settingFlagName } from './setting-flags.js';

/** The README's settings table, generated from the one options table (a test keeps the README in step). */
export function settingsTable(): string {
  const rows = OPTIONS.map((o) => {
    const name = settingFlagName(o);
    const flag = name === undefined ? '(profile only)' : `\`${name}\``;
    const fallback = o.default === undefined ? '' : `\`${String(o.default)}\``;
    return `| \`${o.key}\` | ${flag} | \`${o.env}\` | ${fallback} | ${o.description} |`;
  });
  return ['| key | flag | env | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
