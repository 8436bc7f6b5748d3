import { OPTIONS } from '../../src/config/options.js';
import { FLAGS, GROUPS, type FlagSpec, type GroupId, type ValueSpec } from '../../src/options/index.js';
import { choicesOf, flagOf, worded } from '../../src/cli/flags.js';
import { settingFlagName } from '../../src/cli/setting-flags.js';

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

/** Text in a table cell: a `|` would end the cell (in code too); outside code a `<` would open a tag. */
function cell(text: string, code = false): string {
  const escaped = text.replaceAll('|', '\\|');
  return code ? escaped : escaped.replaceAll('<', '&lt;');
}

function valueText(spec: FlagSpec, value: ValueSpec): string {
  switch (value.kind) {
    case 'whole':
      return `whole number, ${value.min} to ${value.max === Number.MAX_SAFE_INTEGER ? 'any' : value.max}${value.all === true ? ', or all' : ''}`;
    case 'rate':
      return 'requests per second';
    case 'duration':
      return `duration${value.range === true ? ' or MIN-MAX' : ''}, ${value.min} to ${value.max} (a bare number is ${value.bare})`;
    case 'choice':
      return (choicesOf(spec) ?? []).join(', ');
    case 'text':
      return `\`<${value.placeholder}>\``;
  }
}

function row(spec: FlagSpec): string {
  const names = [spec.short === undefined ? undefined : `-${spec.short}`, flagOf(spec.name), ...(spec.negation === undefined ? [] : [flagOf(`no-${spec.name}`)])];
  const option = names.filter((name) => name !== undefined).map((name) => `\`${name}\``).join(', ');
  const value = spec.value === undefined ? 'switch' : valueText(spec, spec.value);
  const fallback = spec.default === undefined ? '' : `\`${String(spec.default)}\``;
  const env = spec.env === undefined ? '' : `\`${spec.env}\``;
  const meaning = `${worded(spec.description)}${spec.repeatable === true ? ' (repeatable)' : ''}${spec.aliases === undefined ? '' : ` (also ${spec.aliases.map((alias) => `\`${flagOf(alias)}\``).join(', ')})`}`;
  return `| ${option} | ${spec.commands.join(', ')} | ${cell(value, true)} | ${cell(fallback, true)} | ${env} | ${cell(meaning)} |`;
}

/**
 * The README's option tables, one per help group, from the flag table: every option but the settings' (those are in
 * the settings table, with their profile keys).
 */
export function optionTables(): string {
  const sections: string[] = [];
  for (const group of Object.keys(GROUPS) as GroupId[]) {
    const specs = FLAGS.filter((spec) => spec.group === group && spec.setting === undefined);
    if (specs.length === 0) continue;
    sections.push(`**${GROUPS[group] || 'Other options'}**\n\n| option | commands | value | default | env | meaning |\n|---|---|---|---|---|---|\n${specs.map(row).join('\n')}`);
  }
  return sections.join('\n\n');
}
