/** The largest record the reader holds in memory: a CSV record (all its cells), an NDJSON line or a JSON element. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** How many leading bytes are looked at to tell the format and the CSV delimiter. */
export const SNIFF_BYTES = 64 * 1024;
