import type { Location } from '../errors.js';

const CHUNK = 1024 * 1024;
/** Longer SKUs (rare) go to a plain Map rather than into the chunks. */
const MAX_PACKED = 1024;
/** Offsets are 32-bit: beyond 4 GiB of SKUs (never within the memory budget) the Map takes over. */
const MAX_CHUNKS = 2 ** 32 / CHUNK - 1;
const KIND_NONE = 0;
const KIND_LINE = 1;
const KIND_RECORD = 2;
const TWO_32 = 2 ** 32;

function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    hash ^= bytes[i]!;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The SKUs seen in a run, each with where it was first seen, kept compactly: a 1M-row catalog must be checked for
 * duplicates within the memory budget, and a Map of 1M strings costs about 90 MB of heap. Here each SKU costs its
 * UTF-8 bytes plus 10 (in 1 MiB chunks outside the heap) plus 6 bytes per hash slot at most 3/4 full: about 33 MB
 * for 1M eleven-character SKUs, with no garbage-collection work. Exact: a matching tag is confirmed byte by byte.
 *
 * Entry layout in a chunk: u16 length, the SKU's UTF-8 bytes, f64 packed location.
 */
export class SkuRegistry {
  private chunks: Buffer[] = [Buffer.allocUnsafe(CHUNK)];
  private used = 0;
  /** Slot -> entry offset + 1 (0 = empty); offset = chunk index * CHUNK + position. */
  private offsets = new Uint32Array(1 << 16);
  /** 16 bits of each slot's hash, so that most probes end without reading the chunk. */
  private tags = new Uint16Array(1 << 16);
  private count = 0;
  private readonly long = new Map<string, number>();
  private readonly sources: string[] = [];
  private readonly sourceIndex = new Map<string, number>();

  get size(): number {
    return this.count + this.long.size;
  }

  /** Records `sku` at `location`; when it was seen before, returns where it was first seen instead. */
  firstSeen(sku: string, location: Location): Location | undefined {
    const packed = this.pack(location);
    const bytes = Buffer.byteLength(sku);
    if (bytes > MAX_PACKED || this.chunks.length >= MAX_CHUNKS) {
      const earlier = this.long.get(sku);
      if (earlier !== undefined) return this.unpack(earlier);
      this.long.set(sku, packed);
      return undefined;
    }
    let chunk = this.chunks[this.chunks.length - 1]!;
    if (this.used + 2 + bytes + 8 > CHUNK) {
      chunk = Buffer.allocUnsafe(CHUNK);
      this.chunks.push(chunk);
      this.used = 0;
    }
    // Write the entry first; it is kept only if the SKU is new.
    const start = this.used + 2;
    const end = start + chunk.write(sku, start, 'utf8');
    const hash = fnv1a(chunk, start, end);
    // Mixed, so that the tag does not repeat the low bits that chose the slot.
    const tag = Math.imul(hash, 0x9e3779b1) >>> 16;
    const mask = this.offsets.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const stored = this.offsets[slot]!;
      if (stored === 0) {
        chunk.writeUInt16LE(end - start, this.used);
        chunk.writeDoubleLE(packed, end);
        this.offsets[slot] = (this.chunks.length - 1) * CHUNK + this.used + 1;
        this.tags[slot] = tag;
        this.used = end + 8;
        if (++this.count * 4 > this.offsets.length * 3) this.grow();
        return undefined;
      }
      if (this.tags[slot] === tag) {
        const earlier = this.matchAt(stored - 1, chunk, start, end);
        if (earlier !== undefined) return this.unpack(earlier);
      }
    }
  }

  /** The packed location of the entry at `offset` when its SKU equals bytes start..end of `chunk`. */
  private matchAt(offset: number, chunk: Buffer, start: number, end: number): number | undefined {
    const entryChunk = this.chunks[Math.floor(offset / CHUNK)]!;
    const at = offset % CHUNK;
    const length = entryChunk.readUInt16LE(at);
    if (length !== end - start) return undefined;
    if (entryChunk.compare(chunk, start, end, at + 2, at + 2 + length) !== 0) return undefined;
    return entryChunk.readDoubleLE(at + 2 + length);
  }

  /** Doubles the table; each entry's hash is computed again from its bytes (the table keeps only a 16-bit tag). */
  private grow(): void {
    const offsets = new Uint32Array(this.offsets.length * 2);
    const tags = new Uint16Array(offsets.length);
    const mask = offsets.length - 1;
    for (let i = 0; i < this.offsets.length; i++) {
      const stored = this.offsets[i]!;
      if (stored === 0) continue;
      const chunk = this.chunks[Math.floor((stored - 1) / CHUNK)]!;
      const at = (stored - 1) % CHUNK;
      const hash = fnv1a(chunk, at + 2, at + 2 + chunk.readUInt16LE(at));
      let slot = hash & mask;
      while (offsets[slot] !== 0) slot = (slot + 1) & mask;
      offsets[slot] = stored;
      tags[slot] = this.tags[i]!;
    }
    this.offsets = offsets;
    this.tags = tags;
  }


  /** source, kind (none, line, record) and number in one exact double: (source * 2^32 + number) * 3 + kind. */
  private pack(location: Location): number {
    let index = this.sourceIndex.get(location.source);
    if (index === undefined) {
      index = this.sources.length;
      this.sources.push(location.source);
      this.sourceIndex.set(location.source, index);
    }
    const kind = location.line !== undefined ? KIND_LINE : location.record !== undefined ? KIND_RECORD : KIND_NONE;
    const number = location.line ?? location.record ?? 0;
    return (index * TWO_32 + number) * 3 + kind;
  }

  private unpack(packed: number): Location {
    const kind = packed % 3;
    const rest = (packed - kind) / 3;
    const number = rest % TWO_32;
    const source = this.sources[(rest - number) / TWO_32]!;
    if (kind === KIND_LINE) return { source, line: number };
    if (kind === KIND_RECORD) return { source, record: number };
    return { source };
  }
}
