import { formatLocation, type NameSetting } from '../errors.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { ReportFormat } from './format.js';
import { safeText } from './row.js';
import type { RunSummary } from './summary.js';
import { xmlEscape } from './xml.js';
import { notReadReason } from './csv.js';
import { printable } from '../printable.js';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
/**
 * Room kept for the `<testsuite ...>` start tag, whose counts are known only at the end: it is written over the
 * blank line kept for it, padded with spaces before `>`. Numbers and a timestamp only, so it always fits.
 */
const SUITE_TAG_WIDTH = 240;

/**
 * The JUnit XML report for CI dashboards: one `<testsuite>` with one `<testcase>` per row, named
 * `sku [marketplace] (source:line)` with classname `listings.<source>`; failed and invalid rows carry a `<failure>`, skipped and
 * not attempted rows a `<skipped>`; published, validated and enqueued rows pass.
 */
export function junitFormat(): ReportFormat {
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  const testcase = testcases();
  return {
    header: `${DECLARATION}${' '.repeat(SUITE_TAG_WIDTH)}\n`,
    row(o: RowOutcome): string {
      tests++;
      if (o.outcome === 'failed' || o.outcome === 'invalid') failures++;
      else if (o.outcome === 'skipped' || o.outcome === 'not_attempted') skipped++;
      return testcase(o);
    },
    footer(summary: RunSummary, name: NameSetting): string {
      if (summary.complete) return '</testsuite>\n';
      // The rows never read are not test cases; one skipped case says they exist, so a dashboard does not show green.
      tests++;
      skipped++;
      return `  <testcase name="(rows not read)" classname="listings">\n    <skipped message="${xmlEscape(notReadReason(summary, name))}"/>\n  </testcase>\n</testsuite>\n`;
    },
    patch(summary: RunSummary) {
      const attributes = [
        `name="listings publish"`,
        `tests="${tests}"`,
        `failures="${failures}"`,
        `errors="0"`,
        `skipped="${skipped}"`,
        `time="${seconds(summary.duration_ms)}"`,
        `timestamp="${new Date(Date.now() - summary.duration_ms).toISOString().slice(0, 19)}"`,
      ].join(' ');
      return { at: Buffer.byteLength(DECLARATION), text: `<testsuite ${attributes}`.padEnd(SUITE_TAG_WIDTH - 1) + '>' };
    },
  };
}

/**
 * The `<testcase ...` start of each row, with what every row of a run repeats (its source, its marketplace) made
 * safe and escaped once while it lasts. Both printable and xmlEscape work one character at a time (a surrogate pair
 * with its neighbour), so the parts, cut at ASCII characters, escape to the same text as the whole name would.
 */
function testcases(): (o: RowOutcome) => string {
  let source: string | undefined;
  let sourceText = '';
  let classname = '';
  let marketplace: string | undefined;
  let on = '';
  return (o: RowOutcome): string => {
    if (o.location.source !== source) {
      source = o.location.source;
      sourceText = xmlEscape(printable(source, { lines: false }));
      classname = `" classname="listings.${sourceText}" time="`;
    }
    // The same SKU on two marketplaces is two listings: the name says which.
    if (o.marketplace !== marketplace) {
      marketplace = o.marketplace;
      on = marketplace === undefined ? '' : xmlEscape(printable(` [${marketplace}]`, { lines: false }));
    }
    // XML 1.0 cannot carry most control characters at all: they are written out.
    const sku = o.sku === undefined || o.sku === '' ? '(no sku)' : xmlEscape(printable(o.sku, { lines: false }));
    const open = `  <testcase name="${sku}${on} (${where(o, sourceText)})${classname}${seconds(o.durationMs)}"`;
    return testcaseOf(o, open);
  };
}

/** formatLocation's text, with the source already made safe. */
function where(o: RowOutcome, sourceText: string): string {
  const { line, record } = o.location;
  if (line !== undefined) return `${sourceText}:${line}`;
  if (record !== undefined) return `${sourceText}#${record}`;
  return sourceText;
}

function testcaseOf(o: RowOutcome, open: string): string {
  switch (o.outcome) {
    case 'published':
    case 'validated':
    case 'enqueued':
      return `${open}/>\n`;
    case 'skipped':
    case 'not_attempted': {
      const message = o.outcome === 'skipped' ? (o.reason ?? 'skipped') : `not attempted${o.reason === undefined ? '' : `: ${o.reason}`}`;
      return `${open}>\n    <skipped message="${xml(message)}"/>\n  </testcase>\n`;
    }
    case 'failed':
    case 'invalid': {
      const message = o.outcome === 'invalid' ? (o.error ?? 'invalid row') : (o.reason ?? o.error ?? 'failed');
      return `${open}>\n    <failure message="${xml(message)}" type="${o.outcome}">${xmlEscape(details(o, formatLocation(o.location)))}</failure>\n  </testcase>\n`;
    }
  }
}

function xml(text: string): string {
  return xmlEscape(safeText(text) ?? '');
}

/** The failure's text: a line for each of its parts, each escaped on its own, so only the outside text's own line breaks are written `\u000a`. */
function details(o: RowOutcome, where: string): string {
  const lines = [`${o.outcome} at ${where}`];
  if (o.reason !== undefined) lines.push(`reason: ${o.reason}`);
  if (o.httpStatus !== undefined) lines.push(`http status: ${o.httpStatus}`);
  if (o.attempts > 0) lines.push(`attempts: ${o.attempts}`);
  if (o.issues !== undefined) for (const issue of o.issues) lines.push(`${issue.path}: ${issue.message}`);
  else if (o.error !== undefined) lines.push(`error: ${o.error}`);
  return lines.map((line) => safeText(line) ?? '').join('\n');
}

function seconds(ms: number): string {
  // Whole milliseconds (every row's): the digits toFixed gives, without its float formatting.
  if (Number.isInteger(ms) && ms >= 0 && ms < 2 ** 31) {
    const whole = Math.floor(ms / 1000);
    const rest = ms - whole * 1000;
    return `${whole}.${rest < 10 ? '00' : rest < 100 ? '0' : ''}${rest}`;
  }
  return (ms / 1000).toFixed(3);
}
