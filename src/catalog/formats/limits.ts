/** The largest record the reader holds in memory: a CSV record (all its cells), an NDJSON line or a JSON element. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** How many leading bytes are looked at to tell the format and the CSV delimiter. */
export const SNIFF_BYTES = 64 * 1024;

/**
 * How far past the record limit an NDJSON line is skipped, looking for its end, before the source is given up: a line
 * with no end (/dev/zero, a binary file named .ndjson) would otherwise be read for ever, bounded in memory, not time.
 * Far past the longest line a real export holds: a 64 MiB line between two rows is still one invalid row.
 */
export const MAX_SKIPPED_LINE_BYTES = 256 * MAX_RECORD_BYTES;

/** How much JSON white space is read between two values before the source is given up (spaces without end). */
export const MAX_JSON_SPACE_BYTES = 64 * MAX_RECORD_BYTES;
