import type { Readable } from 'node:stream';

/** The bytes of one catalog file (or object, or HTTP answer), opened and ready to read. */
export interface ByteSource {
  /** The name used in locations: the path, URL, `stdin`, or `s3://bucket/key` of this object. */
  name: string;
  /** The name whose extension tells the format (a path, a URL's path, an S3 key). */
  path: string;
  /** The raw bytes, as the source holds them (maybe compressed); already counted by the meter. */
  stream: Readable;
  contentType?: string;
  contentEncoding?: string;
}

/**
 * A source name, opened: its first part is open (so that a missing source fails at once), later parts (the further
 * objects under an S3 prefix) open when `next` is called.
 */
export interface OpenedSource {
  first: ByteSource;
  /** For sources of several parts: opens the next part, or gives undefined when there are no more. */
  next?: () => Promise<ByteSource | undefined>;
  /** Releases what the source holds (a client's connections) once reading is over. */
  close?: () => void;
  meter: Meter;
}

/** Counts the raw bytes read from a source, for progress. */
export class Meter {
  bytesRead = 0;
  /** Known for files, S3 objects and HTTP answers with Content-Length. */
  totalBytes: number | undefined;

  constructor(totalBytes?: number) {
    this.totalBytes = totalBytes;
  }
}
