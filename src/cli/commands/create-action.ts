import { setFlagsFromString } from 'node:v8';
import { openSender } from '../../run/open-sender.js';
import { prepareOneListing, sendOneListing, type OneListingIssue } from '../../publish/one-listing.js';
import { shellWord } from '../../shell-words.js';
import { cliName } from '../setting-flags.js';
import type { ListingResponse } from '../../contract/schemas.js';
import { invalid, printCreateFailure, rejected } from './create-failure.js';
import { err, out, paint, paintOut } from '../output.js';
import type { LoadedSettings } from '../settings.js';
import { stringifyJson } from '../../json-number.js';
import { listingText } from '../../report/row.js';

/**
 * The service's text on one line (a line break it sent is written `\u000a`, so it cannot forge a line of the output),
 * cut short as in the reports: an answer of a megabyte is not a line of a megabyte (`--json` prints it whole).
 */
const oneLine = (text: string): string => listingText(text) ?? '';

function printListing(listing: ListingResponse, status: number): void {
  out(`${paintOut.green('✔')} ${oneLine(listing.sku)}  ${paintOut.bold(oneLine(listing.status))}  (HTTP ${status})`);
  out(`  title           ${oneLine(listing.title)}`);
  out(`  item specifics  ${listing.item_specifics.length > 0 ? oneLine(listing.item_specifics.join(', ')) : '-'}`);
  for (const [key, value] of Object.entries(listing)) {
    if (['sku', 'status', 'title', 'item_specifics'].includes(key)) continue;
    out(`  ${oneLine(key).padEnd(15)} ${oneLine(typeof value === 'string' ? value : stringifyJson(value))}`);
  }
}

/** An issue as the command line gave it: an image as `--image a.jpg`, else the request's field. */
function issueText(issue: OneListingIssue): string {
  const given = issue.given;
  return given === undefined ? `${issue.path}: ${issue.message}` : `${cliName(given.setting.key)} ${shellWord(given.setting.value)}: ${given.problem(cliName)}`;
}

/**
 * `listings create SKU`: validate locally, send one request, show the listing. With `--json`, stdout holds one JSON
 * document whatever happens: the listing, or the failure (createFailure) with its exit code.
 */
export async function runCreate(sku: string, opts: Record<string, unknown>, settings: () => Promise<LoadedSettings>): Promise<void> {
  try {
    await createListing(sku, opts, await settings());
  } catch (error) {
    if (opts.json === true) printCreateFailure(error);
    throw error;
  }
}

async function createListing(sku: string, opts: Record<string, unknown>, loaded: LoadedSettings): Promise<void> {
  const images = Array.isArray(opts.image) ? (opts.image as string[]) : undefined;
  const givenSettings = Object.entries(loaded.sources).filter(([, source]) => source === 'flag').map(([key]) => key);
  const prepared = prepareOneListing({ sku, title: typeof opts.title === 'string' ? opts.title : undefined, images, givenSettings }, loaded.defaults, cliName);
  if ('issues' in prepared) {
    for (const issue of prepared.issues) err(`${paint.red('invalid')} ${issueText(issue)}`);
    err('nothing was sent');
    throw invalid(prepared.issues);
  }
  // undici parses HTTP with a WebAssembly module that V8 also compiles with its optimising tier in the background,
  // and the process waits for that compile before it exits: ~90 ms of a ~300 ms command that sends one request.
  // The baseline tier alone is plenty for one answer (never for publish, where the parser runs a million times).
  setFlagsFromString('--liftoff-only');
  const { client } = await openSender({ baseUrl: loaded.baseUrl(), apiKey: loaded.apiKey(), allowInsecureHttp: loaded.allowInsecureHttp }, 1, typeof opts.timeout === 'number' ? { timeoutMs: opts.timeout } : {});
  try {
    const sent = await sendOneListing(client, prepared.request);
    if ('rejected' in sent) {
      // The listing's fault: exit 1. Every other failure is the service's, and thrown.
      const error = sent.rejected;
      err(`${paint.red('rejected')} ${sku}: ${error.message}`);
      throw rejected(error);
    }
    if (opts.json) out(stringifyJson(sent.listing, 2));
    else printListing(sent.listing, sent.status);
  } finally {
    await client.close();
  }
}
