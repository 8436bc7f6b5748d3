import type { Location } from '../errors.js';

const CHUNK = 1024 * 1024;
/** Longer SKUs (rare) go to a plain Map rather than into the chunks (the length is one byte). */
const MAX_PACKED = 255;
/** Offsets are 32-bit: beyond 4 GiB of SKUs (never within the memory budget) the Map takes over. */
const MAX_CHUNKS = 2 ** 32 / CHUNK - 1;
const MIN_SLOTS = 1 << 16;
const KIND_NONE = 0;
const KIND_LINE = 1;
const KIND_RECORD = 2;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME);
  return hash >>> 0;
}

/** 8 bits of the hash other than those that choose the slot (the slot comes from the high bits). */
function tagOf(hash: number): number {
  return hash & 0xff;
}

/** A run of entries from one source with one kind of location, from `start` (an entry offset) on. */
interface Segment {
  start: number;
  source: string;
  kind: number;
}

/**
 * The SKUs seen in a run, each with where it was first seen, kept compactly: a 1M-row catalog must be checked for
 * duplicates within the memory budget, and a Map of 1M strings costs about 90 MB of heap. Here each SKU costs its
 * UTF-8 bytes plus 5 (in 1 MiB chunks outside the heap) plus 5 bytes per hash slot at most 3/4 full: about 25 MB
 * for 1M eleven-character SKUs, with no garbage-collection work. Exact: a matching tag is confirmed byte by byte.
 *
 * Entry layout in a chunk: u8 length, the SKU's UTF-8 bytes, u32 line or record number. Entries are only appended,
 * so the source and kind of each entry's location are kept once per run of entries that share them (a segment).
 */
export class SkuRegistry {
  private readonly chunks: Buffer[] = [Buffer.allocUnsafe(CHUNK)];
  /** Bytes used in each chunk but the last (whose use is `used`). */
  private readonly chunkEnds: number[] = [];
  private used = 0;
  /** Slot -> entry offset + 1 (0 = empty); offset = chunk index * CHUNK + position. Linear probing. */
  private offsets = new Uint32Array(MIN_SLOTS);
  /** 8 bits of each slot's hash, so that most probes end without reading the chunk. */
  private tags = new Uint8Array(MIN_SLOTS);
  private count = 0;
  /** SKUs too long to pack, and SKUs whose location does not fit the entry (a number beyond 32 bits). */
  private readonly long = new Map<string, Location>();
  private readonly segments: Segment[] = [];
  private last: Segment | undefined;

  get size(): number {
    return this.count + this.long.size;
  }

  /** Records `sku` at `location`; when it was seen before, returns where it was first seen instead. */
  firstSeen(sku: string, location: Location): Location | undefined {
    if (sku.length > MAX_PACKED) return this.seenLong(sku, location);
    let chunk = this.chunks[this.chunks.length - 1]!;
    // With every chunk full (4 GiB), the bytes are written aside only to look the SKU up.
    let full = false;
    if (this.used + 1 + sku.length * 3 + 4 > CHUNK) {
      if (this.chunks.length < MAX_CHUNKS) {
        chunk = Buffer.allocUnsafe(CHUNK);
        this.chunkEnds.push(this.used);
        this.chunks.push(chunk);
        this.used = 0;
      } else {
        chunk = Buffer.allocUnsafe(1 + MAX_PACKED * 3 + 4);
        full = true;
      }
    }
    // Write the SKU's bytes after the length byte first; the entry is kept only if the SKU is new.
    const start = full ? 1 : this.used + 1;
    let end = start;
    let hash = FNV_OFFSET;
    for (let i = 0; i < sku.length; i++) {
      const code = sku.charCodeAt(i);
      if (code >= 0x80) {
        end = -1;
        break;
      }
      chunk[end++] = code;
      hash = Math.imul(hash ^ code, FNV_PRIME);
    }
    if (end < 0) {
      if (Buffer.byteLength(sku) > MAX_PACKED) return this.seenLong(sku, location);
      end = start + chunk.write(sku, start, 'utf8');
      hash = fnv1a(chunk, start, end);
    }
    hash >>>= 0;
    const tag = tagOf(hash);
    const slots = this.offsets.length;
    for (let slot = this.slotOf(hash, slots); ; slot = slot + 1 === slots ? 0 : slot + 1) {
      const stored = this.offsets[slot]!;
      if (stored === 0) {
        if (this.long.size > 0) {
          const earlier = this.long.get(sku);
          if (earlier !== undefined) return earlier;
        }
        const number = location.line ?? location.record ?? 0;
        if (full || !(number >= 0 && number <= 0xffffffff && Number.isInteger(number))) return this.seenLong(sku, location);
        this.noteSegment(location);
        chunk[this.used] = end - start;
        chunk.writeUInt32LE(number, end);
        this.offsets[slot] = (this.chunks.length - 1) * CHUNK + this.used + 1;
        this.tags[slot] = tag;
        this.used = end + 4;
        if (++this.count * 4 > slots * 3) this.grow();
        return undefined;
      }
      if (this.tags[slot] === tag && this.sameSku(stored - 1, chunk, start, end)) return this.locationAt(stored - 1);
    }
  }

  private seenLong(sku: string, location: Location): Location | undefined {
    const earlier = this.long.get(sku);
    if (earlier !== undefined) return earlier;
    this.long.set(sku, location);
    return undefined;
  }

  /** The slot where a hash's probe starts: its high bits scaled to the table (which need not be a power of two). */
  private slotOf(hash: number, slots: number): number {
    // Rounding may reach `slots` for a hash near 2^32; the answer only has to be the same for the same hash.
    return Math.min(Math.floor((hash * slots) / 2 ** 32), slots - 1);
  }

  /** True when the entry at `offset` holds bytes start..end of `chunk`. */
  private sameSku(offset: number, chunk: Buffer, start: number, end: number): boolean {
    const entryChunk = this.chunks[Math.floor(offset / CHUNK)]!;
    let at = offset % CHUNK;
    if (entryChunk[at++] !== end - start) return false;
    for (let i = start; i < end; i++, at++) if (entryChunk[at] !== chunk[i]) return false;
    return true;
  }

  /**
   * Grows the table by half: each entry is hashed again from its bytes, read in the order they were written (one
   * pass through the chunks, not a jump into them per slot).
   */
  private grow(): void {
    const slots = Math.ceil((this.offsets.length * 3) / 2);
    const offsets = new Uint32Array(slots);
    const tags = new Uint8Array(slots);
    for (let index = 0; index < this.chunks.length; index++) {
      const chunk = this.chunks[index]!;
      const used = index < this.chunkEnds.length ? this.chunkEnds[index]! : this.used;
      for (let at = 0; at < used; ) {
        const start = at + 1;
        const end = start + chunk[at]!;
        const hash = fnv1a(chunk, start, end);
        let slot = this.slotOf(hash, slots);
        while (offsets[slot] !== 0) slot = slot + 1 === slots ? 0 : slot + 1;
        offsets[slot] = index * CHUNK + at + 1;
        tags[slot] = tagOf(hash);
        at = end + 4;
      }
    }
    this.offsets = offsets;
    this.tags = tags;
  }

  private noteSegment(location: Location): void {
    const kind = location.line !== undefined ? KIND_LINE : location.record !== undefined ? KIND_RECORD : KIND_NONE;
    const last = this.last;
    if (last !== undefined && last.source === location.source && last.kind === kind) return;
    this.last = { start: (this.chunks.length - 1) * CHUNK + this.used, source: location.source, kind };
    this.segments.push(this.last);
  }

  /** The location of the entry at `offset`: its number from the entry, its source and kind from its segment. */
  private locationAt(offset: number): Location {
    const chunk = this.chunks[Math.floor(offset / CHUNK)]!;
    const at = offset % CHUNK;
    const number = chunk.readUInt32LE(at + 1 + chunk[at]!);
    let low = 0;
    let high = this.segments.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.segments[middle]!.start <= offset) low = middle;
      else high = middle - 1;
    }
    const { source, kind } = this.segments[low]!;
    if (kind === KIND_LINE) return { source, line: number };
    if (kind === KIND_RECORD) return { source, record: number };
    return { source };
  }
}
