import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { parse } from 'csv-parse/sync';
import { runCli, spawnCli, type CliResult } from './cli.js';
import { tempDir } from './tmp.js';

export const HEADER = 'sku,title,marketplace,images_source,merchant_location_key,fulfillment_policy_id,payment_policy_id,return_policy_id,overrides.condition';

/** One valid flat CSV row; `condition` lets a test edit a row's content. */
export function csvRow(i: number, condition = 'NEW'): string {
  return `SKU-${String(i).padStart(6, '0')},Item ${i},EBAY_US,https://images.example.com/${i}/a.jpg|https://images.example.com/${i}/b.jpg,warehouse-1,FULFILL-1,PAY-1,RETURN-1,${condition}`;
}

/** A generated flat catalog of `rows` rows in `dir`. */
export function writeCatalog(dir: string, rows: number, name = 'catalog.csv', row: (i: number) => string = (i) => csvRow(i)): string {
  const lines = [HEADER];
  for (let i = 0; i < rows; i++) lines.push(row(i));
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

export function skuOf(i: number): string {
  return `SKU-${String(i).padStart(6, '0')}`;
}

/** The rows of a CSV report, as objects keyed by its header. */
export function readCsvReport(path: string): Record<string, string>[] {
  return parse<Record<string, string>>(readFileSync(path, 'utf8'), { columns: true, skip_empty_lines: false });
}

/** Every file below `dir` (one level of folders), for "the key is in no file" checks. */
export function filesBelow(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesBelow(path));
    else found.push(path);
  }
  return found;
}

/** The environment of a publish against a sandbox process. */
export function publishEnv(url: string, key = 'sandbox-key'): Record<string, string> {
  return { LISTINGS_BASE_URL: url, LISTINGS_API_KEY: key };
}

export interface CatalogRun {
  result: CliResult;
  /** The fresh folder the run ran in, holding its catalog. */
  dir: string;
  catalog: string;
  /** Wall time of the CLI, spawn to exit, in ms. */
  ms: number;
}

export interface CatalogRunOptions {
  /** Added to the clean environment (`undefined` removes a variable). */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** The catalog written in the run's folder; default: `rows` generated rows. */
  catalog?: (dir: string) => string;
  /** The prefix of the run's temporary folder. */
  dirPrefix?: string;
}

/** `listings publish <catalog> ...args` in a fresh folder, with a catalog of `rows` generated rows; `args` may name files in the folder. */
export async function publishCatalog(rows: number, args: string[] | ((dir: string) => string[]), options: CatalogRunOptions = {}): Promise<CatalogRun> {
  const dir = tempDir(options.dirPrefix);
  const catalog = options.catalog?.(dir) ?? writeCatalog(dir, rows);
  const started = Date.now();
  const result = await runCli(['publish', catalog, ...(typeof args === 'function' ? args(dir) : args)], {
    cwd: dir,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  return { result, dir, catalog, ms: Date.now() - started };
}

/** Start a publish, wait until the sandbox has created some listings, then send `signal`; resolves with the exit. */
export async function interrupted(args: string[], cwd: string, url: string, stats: () => Promise<{ created: number }>, signal: NodeJS.Signals) {
  const child = spawnCli(args, { cwd, env: publishEnv(url) });
  let stderr = '';
  let stdout = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  for (let waited = 0; (await stats()).created < 40 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  child.kill(signal);
  const [code, by] = await exited;
  return { code, by, stderr, stdout };
}
