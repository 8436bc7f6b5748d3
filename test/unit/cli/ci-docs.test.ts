import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { buildProgram } from '../../../src/cli/main.js';

/**
 * docs/ci.md and the workflow files it shows cannot drift from the tool: every YAML block parses, each example file
 * is shown verbatim on the page, and every `listings <command> --flag` in a `run:` or `script:` line is an option of
 * that command in the real commander program.
 */

const DOCS = new URL('../../../docs/', import.meta.url);
const EXAMPLES = ['examples/github-nightly.yml', 'examples/gitlab-ci.yml'];
const program = await buildProgram();

function read(path: string): string {
  return readFileSync(new URL(path, DOCS), 'utf8');
}

/** The ```yaml blocks of a markdown text. */
function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

/** Parse a YAML text; every error (with its line) fails. */
function parseYaml(text: string, where: string): unknown {
  const document = parseDocument(text, { prettyErrors: true });
  expect(document.errors.map((error) => `${where}: ${error.message}`)).toEqual([]);
  return document.toJS() as unknown;
}

/** Every shell script of a workflow: GitHub's `run:` and GitLab's `script:`, `before_script:`, `after_script:`. */
function scriptsOf(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const item of node) scriptsOf(item, found);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'run' && typeof value === 'string') found.push(value);
      else if ((key === 'script' || key === 'before_script' || key === 'after_script') && (typeof value === 'string' || Array.isArray(value))) {
        for (const line of [value].flat()) if (typeof line === 'string') found.push(line);
      } else scriptsOf(value, found);
    }
  }
  return found;
}

/** Shell words and control operators of a script: quotes kept together, backslash-newline joined. */
function shellTokens(script: string): string[] {
  const tokens: string[] = [];
  const text = script.replace(/\\\r?\n/g, ' ');
  let word: string | undefined;
  let quote: string | undefined;
  const end = () => {
    if (word !== undefined) tokens.push(word);
    word = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else word = (word ?? '') + char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= '';
    } else if (char === '#' && word === undefined) {
      while (i < text.length && text[i] !== '\n') i++;
      end();
      tokens.push(';');
    } else if (/\s/.test(char)) {
      end();
      if (char === '\n') tokens.push(';');
    } else if (char === ';' || char === '|' || char === '&') {
      end();
      tokens.push(';');
      if (text[i + 1] === char) i++;
    } else {
      word = (word ?? '') + char;
    }
  }
  end();
  return tokens;
}

/** The words after `listings` up to the end of its command, for each `listings` of a script (also `npx listings`). */
function invocationsOf(script: string): string[][] {
  const tokens = shellTokens(script);
  const found: string[][] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (basename(tokens[i] ?? '') !== 'listings') continue;
    const words: string[] = [];
    for (let j = i + 1; j < tokens.length && tokens[j] !== ';'; j++) words.push(tokens[j] ?? '');
    found.push(words);
  }
  return found;
}

/** A command line checked against the real program. */
interface Invocation {
  /** `publish`, or `config set`. */
  command: string;
  /** The flags given, without their values. */
  flags: string[];
  /** An unknown command or flag, named. */
  problems: string[];
}

function checkInvocation(words: string[], program: Command): Invocation {
  const [name = '', second] = words;
  const command = program.commands.find((candidate) => candidate.name() === name);
  const flags = words.filter((word) => word.startsWith('-') && word !== '-' && word !== '--').map((word) => word.split('=')[0] ?? word);
  if (command === undefined) return { command: name, flags, problems: [`unknown command: listings ${name}`] };
  const subcommand = command.commands.find((candidate) => candidate.name() === second);
  const target = subcommand ?? command;
  const known = new Set(['--help', '-h']);
  for (const option of target.options) {
    if (option.long !== undefined) known.add(option.long);
    if (option.short !== undefined) known.add(option.short);
  }
  const path = subcommand === undefined ? name : `${name} ${second ?? ''}`;
  return { command: path, flags, problems: flags.filter((flag) => !known.has(flag)).map((flag) => `listings ${path}: unknown flag ${flag}`) };
}

/** Every listings invocation of a YAML text, checked; `problems` names each unknown command or flag and where. */
function check(text: string, where: string): { problems: string[]; invocations: Invocation[] } {
  const invocations = scriptsOf(parseYaml(text, where)).flatMap(invocationsOf).map((words) => checkInvocation(words, program));
  return { invocations, problems: invocations.flatMap((invocation) => invocation.problems.map((problem) => `${where}: ${problem}`)) };
}

describe('docs/ci.md workflows', () => {
  const page = read('ci.md');
  const blocks = yamlBlocks(page);

  it('shows each example file verbatim, and links it', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const path of EXAMPLES) {
      expect(blocks).toContain(read(path));
      expect(page).toContain(`](${path})`);
    }
  });

  it.each(EXAMPLES)('%s parses and uses only flags that exist', (path) => {
    const { problems, invocations } = check(read(path), path);
    expect(problems).toEqual([]);
    expect(invocations.length).toBeGreaterThan(0);
  });

  it('every YAML block of the page parses and uses only flags that exist', () => {
    const problems = blocks.flatMap((block, n) => check(block, `docs/ci.md yaml block ${n + 1}`).problems);
    expect(problems).toEqual([]);
  });

  it('the nightly workflows publish from S3 with --changed-only, a shard each, the HTML report, cached state', () => {
    for (const path of EXAMPLES) {
      const text = read(path);
      const publish = check(text, path).invocations.find((invocation) => invocation.command === 'publish');
      expect(publish?.flags).toEqual(expect.arrayContaining(['--changed-only', '--shard', '--report']));
      expect(text).toMatch(/s3:\/\//);
      expect(text).toContain('--report run.html');
      expect(text).toContain('.listings');
    }
    const gitlab = parseYaml(read('examples/gitlab-ci.yml'), 'gitlab') as { 'listings-nightly': { artifacts: { reports: { junit: string } } } };
    expect(gitlab['listings-nightly'].artifacts.reports.junit).toBe('results.xml');
  });
});

describe('the GitHub Action in docs/ci.md', () => {
  interface Step {
    uses?: string;
    with?: Record<string, unknown>;
    env?: Record<string, unknown>;
  }
  const ACTION_EXAMPLE = 'examples/github-action-nightly.yml';
  const action = parseYaml(readFileSync(new URL('../action.yml', DOCS), 'utf8'), 'action.yml') as { inputs: Record<string, { required?: boolean }> };
  const workflow = parseYaml(read(ACTION_EXAMPLE), ACTION_EXAMPLE) as { jobs: Record<string, { steps: Step[] }> };
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
  const uses = steps.filter((step) => step.uses?.endsWith('/listings@v0.1.0') === true);

  it('shows the example verbatim and links it', () => {
    const page = read('ci.md');
    expect(yamlBlocks(page)).toContain(read(ACTION_EXAMPLE));
    expect(page).toContain(`](${ACTION_EXAMPLE})`);
  });

  it('gives the action only inputs action.yml declares, every required one, and the key through env from a secret', () => {
    expect(uses).toHaveLength(1);
    const [step] = uses;
    const given = Object.keys(step?.with ?? {});
    expect(given.filter((name) => !(name in action.inputs))).toEqual([]);
    expect(Object.entries(action.inputs).filter(([name, input]) => input.required === true && !given.includes(name))).toEqual([]);
    expect(step?.env?.LISTINGS_API_KEY).toBe('${{ secrets.LISTINGS_API_KEY }}');
    expect(JSON.stringify(step?.with)).not.toMatch(/secret|api.?key/i);
    expect(step?.with).toMatchObject({ shard: 'auto', 'changed-only': 'true' });
    expect(steps.some((other) => other.uses?.startsWith('actions/upload-artifact') === true)).toBe(true);
  });
});

describe('the flag check itself', () => {

  it('finds listings invocations across continuations, operators and quoting', () => {
    const script = 'set +e\nlistings publish "$CATALOG" --changed-only \\\n  --shard "${{ matrix.shard }}/4" --report=run.html > out.json && npx listings validate x --max-errors 5; echo "listings::not a call"';
    expect(invocationsOf(script)).toEqual([
      ['publish', '$CATALOG', '--changed-only', '--shard', '${{ matrix.shard }}/4', '--report=run.html', '>', 'out.json'],
      ['validate', 'x', '--max-errors', '5'],
    ]);
  });

  it('names an unknown flag and an unknown command', () => {
    const problems = (line: string) => checkInvocation(line.split(' '), program).problems;
    expect(problems('publish s3://b/ --changed-only --chnaged-only --no-journal --report=a.csv -')).toEqual(['listings publish: unknown flag --chnaged-only']);
    expect(problems('validate a.csv --shard 1/2')).toEqual(['listings validate: unknown flag --shard']);
    expect(problems('publsh a.csv')).toEqual(['unknown command: listings publsh']);
    expect(problems('config set marketplace EBAY_US --profile nightly')).toEqual([]);
    expect(problems('config get marketplace --json')).toEqual(['listings config get: unknown flag --json']);
    const yaml = 'jobs:\n  a:\n    steps:\n      - run: listings publish s3://b/ --changed-only --bogus\n';
    expect(check(yaml, 'inline').problems).toEqual(['inline: listings publish: unknown flag --bogus']);
  });
});
