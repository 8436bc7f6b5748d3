import { resolveAutoShard } from '../publish/shard-auto.js';
import { err } from './output.js';

/** `--shard auto`: the job's `K/N` from the CI's variables, said on stderr (unless quiet) with where it came from. */
export function announceAutoShard(quiet: boolean): string {
  const { shard, from } = resolveAutoShard(process.env);
  const text = `${shard.index}/${shard.count}`;
  if (!quiet) err(`shard ${text} (from ${from})`);
  return text;
}
