import { CATALOG_FLAGS } from './catalog-flags.js';
import { OUTPUT_FLAGS, ROW_FLAGS, SENDING_FLAGS, KAFKA_FLAGS, SETUP_FLAGS } from './run-flags.js';
import { LISTEN_FLAGS, SANDBOX_FLAGS } from './server-flags.js';
import { CONFIG_FLAGS, SETTING_FLAGS } from './setting-flags.js';
import type { FlagSpec } from './spec.js';

export { COMMANDS, GROUPS, type CommandPath, type Completion, type FlagSpec, type GroupId, type NamedList, type ValueSpec } from './spec.js';
export { formatDuration, parseDuration, type DurationUnit } from './duration.js';
export { parseValue, placeholderOf } from './value.js';

/**
 * THE table: every option of every command, once. Commander's declarations, the help groups, the settings' flags,
 * the completion scripts and the README's option tables are all made from it (test/unit/cli/flag-table.test.ts).
 * Within a help group, options are shown in this order.
 */
export const FLAGS: readonly FlagSpec[] = [...CATALOG_FLAGS, ...SETTING_FLAGS, ...SENDING_FLAGS, ...ROW_FLAGS, ...KAFKA_FLAGS, ...OUTPUT_FLAGS, ...SETUP_FLAGS, ...CONFIG_FLAGS, ...SANDBOX_FLAGS, ...LISTEN_FLAGS];

/** The options of one command, in table order. */
export function flagsOf(command: string): FlagSpec[] {
  return FLAGS.filter((flag) => (flag.commands as readonly string[]).includes(command));
}
