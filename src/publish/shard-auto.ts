import { UsageError } from '../errors.js';
import { printable } from '../printable.js';
import type { Shard } from './shard.js';

/**
 * `shard auto`: the job's shard from the variables the CI it runs in sets for parallel jobs, so that no workflow
 * has to turn a 0-based index into a 1-based one. Pure: the environment is passed in.
 */

/** Where a shard was found: the variables read, and the system that sets them. */
interface ShardVariables {
  /** Who sets them, for the notice: `GitLab`. Empty for the tool's own variables. */
  ci: string;
  index: string;
  total: string;
  /** The index of the first job: 0 or 1. */
  base: 0 | 1;
}

/** The tool's own pair: what a GitHub Actions matrix (which has no job index of its own) sets in `env:`. */
export const SHARD_INDEX_ENV = 'LISTINGS_SHARD_INDEX';
export const SHARD_TOTAL_ENV = 'LISTINGS_SHARD_TOTAL';

/** In order: the tool's own pair wins over whatever the CI sets. */
const SHARD_VARIABLES: readonly ShardVariables[] = [
  { ci: '', index: SHARD_INDEX_ENV, total: SHARD_TOTAL_ENV, base: 1 },
  { ci: 'Kubernetes', index: 'JOB_COMPLETION_INDEX', total: SHARD_TOTAL_ENV, base: 0 },
  { ci: 'GitLab', index: 'CI_NODE_INDEX', total: 'CI_NODE_TOTAL', base: 1 },
  { ci: 'CircleCI', index: 'CIRCLE_NODE_INDEX', total: 'CIRCLE_NODE_TOTAL', base: 0 },
  { ci: 'Buildkite', index: 'BUILDKITE_PARALLEL_JOB', total: 'BUILDKITE_PARALLEL_JOB_COUNT', base: 0 },
];

/** The shard `auto` resolved to, and where it came from: `GitLab CI_NODE_INDEX/CI_NODE_TOTAL`. */
export interface AutoShard {
  shard: Shard;
  from: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const WHOLE = /^\d{1,6}$/;

function set(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** An environment value in a message: shown as text, cut short. */
function shown(value: string): string {
  const cut = value.length > 40 ? `${value.slice(0, 39)}…` : value;
  return `"${printable(cut)}"`;
}

function refuse(message: string, hint?: string): UsageError {
  return new UsageError((name) => `${name('shard')} auto: ${message}`, {
    ...(hint === undefined ? {} : { hint }),
    setting: { key: 'shard', value: 'auto' },
  });
}

function fromVariables(env: Env, v: ShardVariables): AutoShard {
  const indexText = set(env, v.index) ?? '';
  const totalText = set(env, v.total);
  const counted = v.base === 0 ? 'from 0' : 'from 1';
  if (totalText === undefined) {
    const hint = v.total === SHARD_TOTAL_ENV ? `set ${SHARD_TOTAL_ENV} to the number of jobs (a Kubernetes Job's completions)` : undefined;
    throw refuse(`${v.index} is set but ${v.total} is not`, hint);
  }
  if (!WHOLE.test(totalText) || Number(totalText) < 1) throw refuse(`${v.total} must be a whole number of jobs, 1 or more; it is ${shown(totalText)}`);
  const total = Number(totalText);
  const last = total - 1 + v.base;
  if (!WHOLE.test(indexText) || Number(indexText) < v.base || Number(indexText) > last) {
    throw refuse(`${v.index} must be a whole number from ${v.base} to ${last} (${v.total} is ${total}; ${v.ci === '' ? 'it counts' : `${v.ci} counts jobs`} ${counted}); it is ${shown(indexText)}`);
  }
  const names = `${v.index}/${v.total}`;
  return { shard: { index: Number(indexText) - v.base + 1, count: total }, from: v.ci === '' ? names : `${v.ci} ${names}` };
}

/**
 * The shard of this job from the environment, or a UsageError that says which variable is missing or wrong.
 * Indexes are mapped to the 1-based `K/N`: GitLab's `CI_NODE_INDEX` and `LISTINGS_SHARD_INDEX` count from 1,
 * CircleCI, Buildkite and Kubernetes from 0. A GitLab job without `parallel` (only `CI_NODE_TOTAL=1`) is 1/1.
 */
export function resolveAutoShard(env: Env): AutoShard {
  const found = SHARD_VARIABLES.find((v) => set(env, v.index) !== undefined);
  if (found !== undefined) return fromVariables(env, found);
  if (set(env, SHARD_TOTAL_ENV) !== undefined) {
    throw refuse(`${SHARD_TOTAL_ENV} is set but no index is`, `set ${SHARD_INDEX_ENV} (1 to ${SHARD_TOTAL_ENV}), or run in a Kubernetes indexed Job (JOB_COMPLETION_INDEX)`);
  }
  if (set(env, 'CI_NODE_TOTAL') === '1') return { shard: { index: 1, count: 1 }, from: 'GitLab CI_NODE_TOTAL (no parallel jobs)' };
  if (env.GITHUB_ACTIONS === 'true') {
    throw refuse(
      `GitHub Actions has no job index of its own, and ${SHARD_INDEX_ENV} is not set`,
      `in the step's env, from a matrix of shard: [1, 2, 3, 4]: ${SHARD_INDEX_ENV}: \${{ matrix.shard }} and ${SHARD_TOTAL_ENV}: \${{ strategy.job-total }}`,
    );
  }
  throw refuse(
    'no CI job index is set in the environment',
    `set ${SHARD_INDEX_ENV} (1 to N) and ${SHARD_TOTAL_ENV} (N); GitLab (parallel), CircleCI (parallelism), Buildkite (parallelism) and Kubernetes indexed Jobs (JOB_COMPLETION_INDEX, with ${SHARD_TOTAL_ENV}) are read by themselves`,
  );
}
