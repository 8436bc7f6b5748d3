import { readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/main.js';
import { commandPath } from '../../../src/cli/help.js';
import { flagOf, flagsText, headingOf, helpText } from '../../../src/cli/flags.js';
import { optionTables } from '../../helpers/readme-tables.js';
import { FLAG_OF_SETTING } from '../../../src/cli/setting-flags.js';
import { COMMANDS, FLAGS, flagsOf, parseValue, type FlagSpec } from '../../../src/options/index.js';
import { SANDBOX_DEFAULTS } from '../../../src/sandbox/options.js';

/**
 * Every option of every command comes from the one flag table (src/options), and the table and what is made from it
 * (commander's options, their help, the README's option tables) cannot drift apart.
 */

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

/** commander's own options, not the program's. */
const OWN = new Set(['--help', '--version']);

/** The table entry a declared option comes from: its name, its `no-` form, or an old name. */
function entryOf(path: string, option: Option): { spec: FlagSpec; as: 'option' | 'negation' | 'alias' } | undefined {
  for (const spec of flagsOf(path)) {
    if (option.long === flagOf(spec.name)) return { spec, as: 'option' };
    if (spec.negation !== undefined && option.long === flagOf(`no-${spec.name}`)) return { spec, as: 'negation' };
    if (spec.aliases?.some((alias) => option.long === flagOf(alias))) return { spec, as: 'alias' };
  }
  return undefined;
}

const commands = allCommands(await buildProgram());

describe('the flag table', () => {

  it('every option of every command is declared from the table: its flags, help text and help group', () => {
    const checked: string[] = [];
    for (const command of commands) {
      const path = commandPath(command);
      for (const option of command.options) {
        if (option.long !== undefined && OWN.has(option.long)) continue;
        const entry = entryOf(path, option);
        expect(entry, `${path || 'listings'} ${option.flags}: not in the flag table`).toBeDefined();
        if (entry?.as !== 'option') continue;
        expect(option.flags, `${path} ${option.flags}`).toBe(flagsText(entry.spec));
        expect(option.description, `${path} ${option.flags}`).toBe(helpText(entry.spec));
        expect(option.helpGroupHeading, `${path} ${option.flags}`).toBe(headingOf(entry.spec));
        expect(option.hidden, `${path} ${option.flags}`).toBe(false);
        checked.push(`${path} ${option.long}`);
      }
    }
    expect(checked.length).toBeGreaterThan(100);
  });

  it('every entry is declared by each command it names, with its no- form and hidden old names', () => {
    const byPath = new Map(commands.map((command) => [commandPath(command), command]));
    for (const spec of FLAGS) {
      for (const path of spec.commands) {
        const command = byPath.get(path);
        expect(command, `${path}: no such command`).toBeDefined();
        const longs = command?.options.map((option) => option.long) ?? [];
        expect(longs, `${path} ${spec.name}`).toContain(flagOf(spec.name));
        if (spec.negation !== undefined) expect(longs, `${path} no-${spec.name}`).toContain(flagOf(`no-${spec.name}`));
        for (const alias of spec.aliases ?? []) expect(command?.options.find((option) => option.long === flagOf(alias))?.hidden, `${path} ${alias}`).toBe(true);
      }
    }
    expect(new Set(FLAGS.flatMap((spec) => spec.commands))).toEqual(new Set(COMMANDS));
  });

  it('no command takes one name from two entries, and a description names only options its commands take', () => {
    for (const path of COMMANDS) {
      const names = flagsOf(path).flatMap((spec) => [spec.name, ...(spec.aliases ?? []), ...(spec.negation === undefined ? [] : [`no-${spec.name}`])]);
      expect(names.filter((name, i) => names.indexOf(name) !== i), path).toEqual([]);
    }
    for (const spec of FLAGS) {
      for (const [, named] of `${spec.description} ${spec.negation ?? ''}`.matchAll(/\{\{([a-z0-9-]+)\}\}/g)) {
        for (const path of spec.commands) expect(flagsOf(path).map((other) => other.name), `${path} ${spec.name}: {{${named}}}`).toContain(named);
      }
    }
  });

  it('every default reads as the option would, and the sandbox shows its own defaults', () => {
    for (const spec of FLAGS) {
      if (spec.default === undefined || spec.value === undefined || spec.value.kind === 'text' || spec.value.kind === 'choice') continue;
      expect(() => parseValue(spec.value!, String(spec.default)), spec.name).not.toThrow();
    }
    const shown = (name: string): unknown => {
      const spec = flagsOf('sandbox').find((flag) => flag.name === name);
      return spec?.value === undefined || spec.default === undefined ? undefined : spec.value.kind === 'text' ? spec.default : parseValue(spec.value, String(spec.default));
    };
    expect({
      host: shown('host'),
      port: shown('port'),
      apiKey: shown('api-key'),
      retryAfterSeconds: shown('retry-after'),
      maxBodyBytes: shown('max-body'),
      spikeMs: shown('spike-ms'),
      webhookAttempts: shown('webhook-attempts'),
      webhookBackoffMs: shown('webhook-backoff-ms'),
    }).toEqual(SANDBOX_DEFAULTS);
  });

  it('words every setting the core names as the one flag of the table (the error wording is derived, not kept by hand)', () => {
    const core = ['format', 'delimiter', 'jsonPath', 'map', 'mapping', 'preset', 'sourceHeaders', 'report', 'retryFailed', 'changedOnly', 'shard', 'maxErrors', 'dryRun', 'allowInsecureHttp', 'dataFile', 'adminListen', 'journal', 'state', 'requestsOut', 'showErrors', 'profile', 'sandbox', 'deadLetter', 'noJournal', 'resume'];
    // The sandbox's and the listener's options, which their own checks name (sandboxOptionIssues, listenOptionIssues).
    const servers = ['port', 'host', 'apiKey', 'savedDefaults', 'latency', 'failRate', 'failStatus', 'rateLimit', 'rateBurst', 'retryAfterSeconds', 'capacity', 'queue', 'dropRate', 'spikeRate', 'spikeMs', 'seed', 'maxBodyBytes', 'webhookUrl', 'webhookSecret', 'webhookAttempts', 'webhookBackoffMs'];
    const listen = ['path', 'maxConnections', 'requestTimeoutSeconds', 'secret', 'allowUnsigned', 'signatureHeader', 'toleranceSeconds', 'forwardTo', 'recordFile'];
    // The fields of create's one listing, named when its shape has no place for one (prepareOneListing).
    const create = ['images', 'title'];
    expect(Object.keys(FLAG_OF_SETTING).sort()).toEqual([...core, ...servers, ...listen, ...create].sort());
    for (const spec of FLAGS) if (spec.key !== undefined) expect(FLAG_OF_SETTING[spec.key], spec.key).toBe(flagOf(spec.name));
  });

  it("the README's option tables are the ones the table makes", () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const between = /<!-- option tables:[^\n]*-->\n([\s\S]*?)\n<!-- end of option tables -->/.exec(readme);
    expect(between, 'README.md: no option tables markers').not.toBeNull();
    expect(between?.[1]).toBe(optionTables());
  });
});
