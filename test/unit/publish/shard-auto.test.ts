import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { resolveAutoShard } from '../../../src/publish/shard-auto.js';
import { wordError } from '../../../src/cli/report-error.js';
import { thrown } from '../../helpers/errors.js';

describe('resolveAutoShard: every CI, its first and its last job as K/N', () => {
  it.each([
    // The tool's own pair (a GitHub Actions matrix sets it): 1-based, like K/N.
    [{ LISTINGS_SHARD_INDEX: '1', LISTINGS_SHARD_TOTAL: '4' }, '1/4', 'LISTINGS_SHARD_INDEX/LISTINGS_SHARD_TOTAL'],
    [{ LISTINGS_SHARD_INDEX: '4', LISTINGS_SHARD_TOTAL: '4', GITHUB_ACTIONS: 'true' }, '4/4', 'LISTINGS_SHARD_INDEX/LISTINGS_SHARD_TOTAL'],
    // GitLab parallel: 1-based.
    [{ CI_NODE_INDEX: '1', CI_NODE_TOTAL: '4' }, '1/4', 'GitLab CI_NODE_INDEX/CI_NODE_TOTAL'],
    [{ CI_NODE_INDEX: '4', CI_NODE_TOTAL: '4' }, '4/4', 'GitLab CI_NODE_INDEX/CI_NODE_TOTAL'],
    // A GitLab job without parallel sets only the total, 1.
    [{ CI_NODE_TOTAL: '1', GITLAB_CI: 'true' }, '1/1', 'GitLab CI_NODE_TOTAL (no parallel jobs)'],
    // CircleCI parallelism: 0-based.
    [{ CIRCLE_NODE_INDEX: '0', CIRCLE_NODE_TOTAL: '3' }, '1/3', 'CircleCI CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL'],
    [{ CIRCLE_NODE_INDEX: '2', CIRCLE_NODE_TOTAL: '3' }, '3/3', 'CircleCI CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL'],
    // Buildkite parallelism: 0-based.
    [{ BUILDKITE_PARALLEL_JOB: '0', BUILDKITE_PARALLEL_JOB_COUNT: '5' }, '1/5', 'Buildkite BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT'],
    [{ BUILDKITE_PARALLEL_JOB: '4', BUILDKITE_PARALLEL_JOB_COUNT: '5' }, '5/5', 'Buildkite BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT'],
    // A Kubernetes indexed Job: 0-based index, the total from the tool's variable.
    [{ JOB_COMPLETION_INDEX: '0', LISTINGS_SHARD_TOTAL: '2' }, '1/2', 'Kubernetes JOB_COMPLETION_INDEX/LISTINGS_SHARD_TOTAL'],
    [{ JOB_COMPLETION_INDEX: '1', LISTINGS_SHARD_TOTAL: '2' }, '2/2', 'Kubernetes JOB_COMPLETION_INDEX/LISTINGS_SHARD_TOTAL'],
    // The tool's own pair wins over what the CI sets; values are trimmed.
    [{ LISTINGS_SHARD_INDEX: ' 2 ', LISTINGS_SHARD_TOTAL: '3', CI_NODE_INDEX: '1', CI_NODE_TOTAL: '4' }, '2/3', 'LISTINGS_SHARD_INDEX/LISTINGS_SHARD_TOTAL'],
  ])('%j -> %s (from %s)', (env, shard, from) => {
    const resolved = resolveAutoShard(env);
    expect(`${resolved.shard.index}/${resolved.shard.count}`).toBe(shard);
    expect(resolved.from).toBe(from);
  });

  it('every job of a 0-based matrix gets a different shard, together all of them', () => {
    const shards = [0, 1, 2, 3].map((i) => resolveAutoShard({ CIRCLE_NODE_INDEX: String(i), CIRCLE_NODE_TOTAL: '4' }).shard.index);
    expect(shards).toEqual([1, 2, 3, 4]);
  });
});

describe('resolveAutoShard refuses, naming the variable', () => {
  it.each([
    [{}, '--shard auto: no CI job index is set in the environment'],
    [{ GITHUB_ACTIONS: 'true' }, '--shard auto: GitHub Actions has no job index of its own, and LISTINGS_SHARD_INDEX is not set'],
    [{ LISTINGS_SHARD_TOTAL: '4' }, '--shard auto: LISTINGS_SHARD_TOTAL is set but no index is'],
    [{ LISTINGS_SHARD_INDEX: '2' }, '--shard auto: LISTINGS_SHARD_INDEX is set but LISTINGS_SHARD_TOTAL is not'],
    [{ JOB_COMPLETION_INDEX: '0' }, '--shard auto: JOB_COMPLETION_INDEX is set but LISTINGS_SHARD_TOTAL is not'],
    [{ CI_NODE_INDEX: '0', CI_NODE_TOTAL: '4' }, '--shard auto: CI_NODE_INDEX must be a whole number from 1 to 4 (CI_NODE_TOTAL is 4; GitLab counts jobs from 1); it is "0"'],
    [{ CI_NODE_INDEX: '5', CI_NODE_TOTAL: '4' }, '--shard auto: CI_NODE_INDEX must be a whole number from 1 to 4 (CI_NODE_TOTAL is 4; GitLab counts jobs from 1); it is "5"'],
    [{ CIRCLE_NODE_INDEX: '3', CIRCLE_NODE_TOTAL: '3' }, '--shard auto: CIRCLE_NODE_INDEX must be a whole number from 0 to 2 (CIRCLE_NODE_TOTAL is 3; CircleCI counts jobs from 0); it is "3"'],
    [{ BUILDKITE_PARALLEL_JOB: '-1', BUILDKITE_PARALLEL_JOB_COUNT: '2' }, '--shard auto: BUILDKITE_PARALLEL_JOB must be a whole number from 0 to 1 (BUILDKITE_PARALLEL_JOB_COUNT is 2; Buildkite counts jobs from 0); it is "-1"'],
    [{ LISTINGS_SHARD_INDEX: '0x1', LISTINGS_SHARD_TOTAL: '2' }, '--shard auto: LISTINGS_SHARD_INDEX must be a whole number from 1 to 2 (LISTINGS_SHARD_TOTAL is 2; it counts from 1); it is "0x1"'],
    [{ CI_NODE_INDEX: '1', CI_NODE_TOTAL: '0' }, '--shard auto: CI_NODE_TOTAL must be a whole number of jobs, 1 or more; it is "0"'],
    [{ CI_NODE_INDEX: '1', CI_NODE_TOTAL: 'four\u001b[2J' }, '--shard auto: CI_NODE_TOTAL must be a whole number of jobs, 1 or more; it is "four\\u001b[2J"'],
  ])('%j', (env, message) => {
    const error = thrown(UsageError, () => resolveAutoShard(env));
    expect(error.setting).toEqual({ key: 'shard', value: 'auto' });
    expect(wordError(error).message).toBe(message);
  });

  it('the refusal without any variable says what to set: on GitHub Actions from the matrix, elsewhere the pair', () => {
    const github = wordError(thrown(UsageError, () => resolveAutoShard({ GITHUB_ACTIONS: 'true' }))).hint;
    expect(github).toBe("in the step's env, from a matrix of shard: [1, 2, 3, 4]: LISTINGS_SHARD_INDEX: ${{ matrix.shard }} and LISTINGS_SHARD_TOTAL: ${{ strategy.job-total }}");
    const elsewhere = wordError(thrown(UsageError, () => resolveAutoShard({}))).hint;
    expect(elsewhere).toContain('LISTINGS_SHARD_INDEX (1 to N) and LISTINGS_SHARD_TOTAL (N)');
    expect(elsewhere).toContain('JOB_COMPLETION_INDEX');
  });
});
