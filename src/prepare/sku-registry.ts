import type { Location } from '../errors.js';
import { FNV_OFFSET, FNV_PRIME, fnv1a32Bytes } from '../fnv1a.js';

const CHUNK = 1024 * 1024;
/** Longer SKUs (rare) go to a plain Map rather than into the chunks (lengths are one byte). */
const MAX_PACKED = 255;
/** The most an entry takes: shared and suffix lengths, the bytes, a number (u32 or a varint of up to 5 bytes). */
const MAX_ENTRY = 2 + MAX_PACKED + 5;
/** Group offsets are 32-bit: beyond 4 GiB of SKUs (never within the memory budget) the Map takes over. */
const MAX_CHUNKS = 2 ** 32 / CHUNK - 1;
/** Entries per group: each group starts with a whole entry, the others are written against the one before. */
const GROUP = 16;
/** A slot holds (group + 1) << 8 | tag, so at most 2^24 - 1 groups; past them the Map takes over. */
const MAX_GROUPS = 2 ** 24 - 1;
const MIN_SLOTS = 1 << 16;
/** The table's ceiling (far beyond any memory budget); past it, new SKUs go to the Map. */
const MAX_SLOTS = 2 ** 28;
const KIND_NONE = 0;
const KIND_LINE = 1;
const KIND_RECORD = 2;
/** A high surrogate without its low one, or a low one without its high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** 8 bits of the hash other than those that choose the slot (the slot comes from the high bits). */
function tagOf(hash: number): number {
  return hash & 0xff;
}

/** The slot where a hash's probe starts: its high bits scaled to the table (which need not be a power of two). */
function slotOf(hash: number, slots: number): number {
  // Rounding may reach `slots` for a hash near 2^32; the answer only has to be the same for the same hash.
  return Math.min(Math.floor((hash * slots) / 2 ** 32), slots - 1);
}

function sameBytes(a: Uint8Array, b: Uint8Array, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The Map key of a listing kept outside the chunks: unambiguous, since the marketplace's length comes first. */
function longKey(sku: string, marketplace: string): string {
  return `${marketplace.length}:${marketplace}${sku}`;
}

/** ES2024's resizable ArrayBuffer (Node 20 has it; the ES2023 lib this project compiles against does not type it). */
interface ResizableArrayBuffer extends ArrayBuffer {
  resize(byteLength: number): void;
}
const ResizableArrayBuffer = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ResizableArrayBuffer;

/** A run of entries from one source with one kind of location, from `start` (an entry offset) on. */
interface Segment {
  start: number;
  source: string;
  kind: number;
}

/**
 * The listings seen in a run, by their identity (marketplace, SKU), each with where it was first seen, kept
 * compactly: an entry's bytes are the marketplace's length (one byte), the marketplace, then the SKU, so the rows
 * of one marketplace share a prefix and pack as well as SKUs alone did. Below, "SKU" means those bytes.
 *
 * The SKUs seen in a run, each with where it was first seen, kept compactly: a 1M-row catalog must be checked for
 * duplicates within the memory budget (a Map of 1M strings costs about 90 MB of heap), and the registry is what
 * grows with the catalog. Exact: a SKU is found only by comparing its bytes.
 *
 * Entries are appended to 1 MiB chunks outside the heap, in groups of 16. The first entry of a group holds the
 * whole SKU and its line or record number (u32); each other entry holds how many leading bytes it shares with the
 * entry before it, the rest of its bytes, and its number as a varint of the difference from the one before (rows
 * are read in order, so that is mostly 1). Catalogs' SKUs often share prefixes row after row (`SKU-0000001`,
 * `SKU-0000002`): then an entry takes 4 or 5 bytes; 2 + length + 1 at worst, plus a group's first. A hash table of
 * 4 bytes per slot (the entry's group and 8 bits of its hash, at most 3/4 full) points at the groups; a group whose
 * tag matches is decoded and searched. The source and kind of the locations are kept once per run of entries sharing
 * them (a segment, which starts a new group). For 1M catalog rows this is about 12 MB.
 */
export class SkuRegistry {
  private readonly chunks: Buffer[] = [Buffer.allocUnsafe(CHUNK)];
  /** Bytes used in each chunk but the last (whose use is `used`). */
  private readonly chunkEnds: number[] = [];
  private used = 0;
  /**
   * The table lives in a resizable buffer that grows in place: a grown table is rebuilt from the entries, so the
   * old one is not needed, and none is left behind as garbage (which the collector would free only much later).
   */
  private readonly tableBuffer = new ResizableArrayBuffer(MIN_SLOTS * 4, { maxByteLength: MAX_SLOTS * 4 });
  /** Slot -> (group + 1) << 8 | tag, 0 when empty. Linear probing. */
  private readonly table = new Uint32Array(this.tableBuffer);
  private count = 0;
  /** Offset (chunk index * CHUNK + position) of each group's first entry, in order. */
  private restarts = new Uint32Array(1024);
  private groups = 0;
  /** Entries in the current group (a full group makes the next entry start one). */
  private inGroup = GROUP;
  /** The last entry written, which the next is written against. */
  private readonly previous = Buffer.allocUnsafe(MAX_PACKED);
  private previousLength = 0;
  private previousNumber = 0;
  /** The listing being looked up, encoded as an entry's bytes (marketplace length, marketplace, SKU as UTF-8). */
  private readonly probe = Buffer.allocUnsafe(MAX_PACKED);
  /** The marketplace whose prefix `probe` holds now, its length in bytes and the FNV-1a hash of that prefix. */
  private probeMarketplace: string | undefined;
  private prefixLength = 0;
  private prefixHash = FNV_OFFSET;
  /** An entry being decoded: its bytes so far, and its number. */
  private readonly decoded = Buffer.allocUnsafe(MAX_PACKED);
  private decodedNumber = 0;
  /** Listings too long to pack, and those whose location does not fit an entry (a number beyond 32 bits), by longKey. */
  private readonly long = new Map<string, Location>();
  private readonly segments: Segment[] = [];
  private last: Segment | undefined;

  get size(): number {
    return this.count + this.long.size;
  }

  /**
   * Records the listing (`marketplace`, `sku`) at `location`; when it was seen before, returns where it was first
   * seen instead. The same SKU on another marketplace is another listing.
   */
  firstSeen(sku: string, location: Location, marketplace = ''): Location | undefined {
    // The marketplace's prefix is written (and hashed) once for the rows of one marketplace in a row.
    if (marketplace !== this.probeMarketplace && !this.setPrefix(marketplace)) return this.seenLong(sku, marketplace, location);
    const start = this.prefixLength;
    if (sku.length + start > MAX_PACKED) return this.seenLong(sku, marketplace, location);
    const probe = this.probe;
    let length = start;
    let hash = this.prefixHash;
    for (let i = 0; i < sku.length; i++) {
      const code = sku.charCodeAt(i);
      if (code >= 0x80) {
        length = -1;
        break;
      }
      probe[length++] = code;
      hash = Math.imul(hash ^ code, FNV_PRIME);
    }
    if (length < 0) {
      // UTF-8 has no lone surrogate: it would be written as U+FFFD, and `A\ud800`, `A\udc00` and `A\ufffd` (three
      // listings, sent as written) would be taken for one. Such a SKU is compared as the text it is.
      if (LONE_SURROGATE.test(sku) || Buffer.byteLength(sku) + start > MAX_PACKED) return this.seenLong(sku, marketplace, location);
      length = start + probe.write(sku, start, 'utf8');
      hash = fnv1a32Bytes(probe, length);
    }
    hash >>>= 0;
    const tag = tagOf(hash);
    const table = this.table;
    const slots = table.length;
    for (let slot = slotOf(hash, slots); ; slot = slot + 1 === slots ? 0 : slot + 1) {
      const stored = table[slot]!;
      if (stored === 0) return this.add(sku, marketplace, location, length, slot, tag);
      if ((stored & 0xff) === tag) {
        const group = (stored >>> 8) - 1;
        if (this.walk(group, (decodedLength) => decodedLength === length && sameBytes(this.decoded, probe, length))) {
          return this.locationAt(this.restarts[group]!, this.decodedNumber);
        }
      }
    }
  }

  /**
   * Writes the entry prefix of `marketplace` into the probe; false when it cannot be packed (not ASCII, too long).
   * A marketplace that cannot be packed leaves the probe as it was: the prefix of `probeMarketplace` must stay in it
   * (a row of an unusable marketplace, `EBAY_ÜS`, came between two rows of EBAY_US and hid their duplicate).
   */
  private setPrefix(marketplace: string): boolean {
    if (marketplace.length >= MAX_PACKED) return false;
    for (let i = 0; i < marketplace.length; i++) if (marketplace.charCodeAt(i) >= 0x80) return false;
    const probe = this.probe;
    probe[0] = marketplace.length;
    let hash = Math.imul(FNV_OFFSET ^ marketplace.length, FNV_PRIME);
    for (let i = 0; i < marketplace.length; i++) {
      const code = marketplace.charCodeAt(i);
      probe[i + 1] = code;
      hash = Math.imul(hash ^ code, FNV_PRIME);
    }
    this.probeMarketplace = marketplace;
    this.prefixLength = marketplace.length + 1;
    this.prefixHash = hash;
    return true;
  }

  private seenLong(sku: string, marketplace: string, location: Location): Location | undefined {
    const key = longKey(sku, marketplace);
    const earlier = this.long.get(key);
    if (earlier !== undefined) return earlier;
    this.long.set(key, location);
    return undefined;
  }

  /** Appends the entry for the probe's `length` bytes and points `slot` at its group (or keeps it in the Map). */
  private add(sku: string, marketplace: string, location: Location, length: number, slot: number, tag: number): Location | undefined {
    if (this.long.size > 0) {
      const earlier = this.long.get(longKey(sku, marketplace));
      if (earlier !== undefined) return earlier;
    }
    const number = location.line ?? location.record ?? 0;
    if (!(Number.isInteger(number) && number >= 0 && number <= 0xffffffff)) return this.seenLong(sku, marketplace, location);
    if ((this.count + 1) * 4 > MAX_SLOTS * 3) return this.seenLong(sku, marketplace, location);
    let chunk = this.chunks[this.chunks.length - 1]!;
    if (this.used + MAX_ENTRY > CHUNK) {
      if (this.chunks.length >= MAX_CHUNKS) return this.seenLong(sku, marketplace, location);
      chunk = Buffer.allocUnsafe(CHUNK);
      this.chunkEnds.push(this.used);
      this.chunks.push(chunk);
      this.used = 0;
      this.inGroup = GROUP;
    }
    const offset = (this.chunks.length - 1) * CHUNK + this.used;
    const kind = location.line !== undefined ? KIND_LINE : location.record !== undefined ? KIND_RECORD : KIND_NONE;
    const newSegment = this.last === undefined || this.last.source !== location.source || this.last.kind !== kind;
    const restart = this.inGroup >= GROUP || newSegment || number < this.previousNumber;
    if (restart && this.groups >= MAX_GROUPS) return this.seenLong(sku, marketplace, location);
    if (newSegment) {
      this.last = { start: offset, source: location.source, kind };
      this.segments.push(this.last);
    }
    const probe = this.probe;
    const previous = this.previous;
    let at = this.used;
    if (restart) {
      this.startGroup(offset);
      chunk[at++] = 0;
      chunk[at++] = length;
      for (let i = 0; i < length; i++) chunk[at++] = previous[i] = probe[i]!;
      chunk.writeUInt32LE(number, at);
      at += 4;
    } else {
      const common = Math.min(length, this.previousLength);
      let shared = 0;
      while (shared < common && previous[shared] === probe[shared]) shared++;
      chunk[at++] = shared;
      chunk[at++] = length - shared;
      for (let i = shared; i < length; i++) chunk[at++] = previous[i] = probe[i]!;
      for (let delta = number - this.previousNumber; ; delta = Math.floor(delta / 128)) {
        if (delta < 128) {
          chunk[at++] = delta;
          break;
        }
        chunk[at++] = (delta % 128) | 0x80;
      }
      this.inGroup++;
    }
    this.used = at;
    this.previousLength = length;
    this.previousNumber = number;
    this.table[slot] = ((this.groups << 8) | tag) >>> 0;
    if (++this.count * 4 > this.table.length * 3 && this.table.length < MAX_SLOTS) this.grow();
    return undefined;
  }

  private startGroup(offset: number): void {
    if (this.groups === this.restarts.length) {
      const restarts = new Uint32Array(this.restarts.length * 2);
      restarts.set(this.restarts);
      this.restarts = restarts;
    }
    this.restarts[this.groups++] = offset;
    this.inGroup = 1;
  }

  /**
   * Decodes the entries of `group` in order, each into `decoded` and `decodedNumber`, calling `visit` with its
   * length; stops at the first entry for which `visit` answers true, and answers whether there was one.
   */
  private walk(group: number, visit: (length: number) => boolean): boolean {
    const start = this.restarts[group]!;
    const index = Math.floor(start / CHUNK);
    const chunk = this.chunks[index]!;
    // A group ends where the next begins, or at its chunk's end (no group crosses chunks).
    const next = group + 1 < this.groups ? this.restarts[group + 1]! : -1;
    const end = next >= 0 && Math.floor(next / CHUNK) === index ? next % CHUNK : index < this.chunkEnds.length ? this.chunkEnds[index]! : this.used;
    const decoded = this.decoded;
    let number = 0;
    for (let at = start % CHUNK, first = true; at < end; first = false) {
      const shared = chunk[at++]!;
      const length = shared + chunk[at++]!;
      for (let i = shared; i < length; i++) decoded[i] = chunk[at++]!;
      if (first) {
        number = chunk.readUInt32LE(at);
        at += 4;
      } else {
        let delta = 0;
        for (let scale = 1; ; scale *= 128) {
          const byte = chunk[at++]!;
          delta += (byte & 0x7f) * scale;
          if (byte < 0x80) break;
        }
        number += delta;
      }
      this.decodedNumber = number;
      if (visit(length)) return true;
    }
    return false;
  }

  /** Grows the table by half, in place: each entry is decoded and hashed again, group by group. */
  private grow(): void {
    const table = this.table;
    table.fill(0);
    const slots = Math.min(Math.ceil((table.length * 3) / 2), MAX_SLOTS);
    this.tableBuffer.resize(slots * 4);
    for (let group = 0; group < this.groups; group++) {
      const value = (group + 1) << 8;
      this.walk(group, (length) => {
        const hash = fnv1a32Bytes(this.decoded, length);
        let slot = slotOf(hash, slots);
        while (table[slot] !== 0) slot = slot + 1 === slots ? 0 : slot + 1;
        table[slot] = (value | tagOf(hash)) >>> 0;
        return false;
      });
    }
  }

  /** The location of an entry of the group at `offset` with `number`: its source and kind from its segment. */
  private locationAt(offset: number, number: number): Location {
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
