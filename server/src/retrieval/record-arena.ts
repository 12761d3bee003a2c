/**
 * The forward index's records: per slot a run of non-negative integers (its term ids, its title's
 * term ids, its sentence starts), each stored as LEB128 bytes (7 bits a byte, the high bit set on
 * every byte but a number's last) in blocks that double from 256 KB to 16 MB; a record never
 * straddles two blocks. A term id takes 1–3 bytes where an Int32Array took 4: most of a chunk's
 * words are common ones, whose ids are small because they were met early (at 200,000 synthetic
 * chunks, 128 bytes a chunk instead of 275).
 *
 * Records are only read for the few candidates a question ranks, so decoding them costs nothing a
 * question notices; the arena is half of what the keyword index holds per chunk besides postings.
 */
const FIRST_BLOCK_BYTES = 1 << 18;
const MAX_BLOCK_BYTES = 1 << 24;
/** The most bytes one 32-bit number takes. */
const MAX_VARINT_BYTES = 5;

/** Where a record starts. */
export interface RecordPlace {
  block: number;
  offset: number;
}

function uint8At(values: Uint8Array, index: number): number {
  const value = values[index];
  if (value === undefined) throw new RangeError(`byte ${index} is out of range (length ${values.length})`);
  return value;
}

/** The offset just past the `count` numbers that start at `offset` in `block`. */
function skipNumbers(block: Uint8Array, offset: number, count: number): number {
  let at = offset;
  for (let n = 0; n < count; n++) while ((uint8At(block, at++) & 0x80) !== 0);
  return at;
}

export class RecordArena {
  private used = 0;

  /** `blocks`: a captured arena's blocks, each cut to what it holds (new records go to a new block). */
  constructor(private blocks: Uint8Array[] = []) {
    this.used = blocks.at(-1)?.length ?? 0;
  }

  /** The blocks, the last one cut to what is used (earlier records are never rewritten: share them). */
  capture(): Uint8Array[] {
    const last = this.blocks.length - 1;
    return this.blocks.map((b, i) => (i === last ? b.subarray(0, this.used) : b));
  }

  get byteLength(): number {
    return this.blocks.reduce((n, b, i) => n + (i === this.blocks.length - 1 ? this.used : b.length), 0);
  }

  /** Appends one record made of `parts` in order; returns where it starts. */
  append(...parts: ArrayLike<number>[]): RecordPlace {
    const count = parts.reduce((n, p) => n + p.length, 0);
    const block = this.room(count * MAX_VARINT_BYTES);
    let at = this.used;
    for (const part of parts) {
      for (let i = 0; i < part.length; i++) {
        let value = part[i] as number;
        if (!(value >= 0 && value <= 0x7fff_ffff && Number.isInteger(value)))
          throw new RangeError(`a record holds whole numbers from 0 to 2³¹−1, not ${value}`);
        while (value >= 0x80) {
          block[at++] = (value & 0x7f) | 0x80;
          value >>>= 7;
        }
        block[at++] = value;
      }
    }
    const place = { block: this.blocks.length - 1, offset: this.used };
    this.used = at;
    return place;
  }

  /** Appends a record copied as bytes from another arena (`count` numbers at `from`). */
  copy(from: RecordArena, place: RecordPlace, count: number): RecordPlace {
    const source = from.blockAt(place.block);
    const end = skipNumbers(source, place.offset, count);
    const block = this.room(end - place.offset);
    block.set(source.subarray(place.offset, end), this.used);
    const copied = { block: this.blocks.length - 1, offset: this.used };
    this.used += end - place.offset;
    return copied;
  }

  /** `count` numbers of the record at `place`, after skipping its first `skip`. */
  read(place: RecordPlace, skip: number, count: number): Int32Array {
    const block = this.blockAt(place.block);
    let at = skipNumbers(block, place.offset, skip);
    const out = new Int32Array(count);
    for (let n = 0; n < count; n++) {
      let byte = uint8At(block, at++);
      let value = byte & 0x7f;
      let shift = 7;
      while (byte & 0x80) {
        byte = uint8At(block, at++);
        value += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      }
      out[n] = value;
    }
    return out;
  }

  private blockAt(index: number): Uint8Array {
    const block = this.blocks[index];
    if (block === undefined) throw new RangeError(`arena block ${index} does not exist`);
    return block;
  }

  /** The last block, or a new one when it has fewer than `bytes` free. */
  private room(bytes: number): Uint8Array {
    const last = this.blocks.at(-1);
    if (last && this.used + bytes <= last.length) return last;
    const doubled = Math.min(MAX_BLOCK_BYTES, (last?.length ?? FIRST_BLOCK_BYTES / 2) * 2);
    const block = new Uint8Array(Math.max(doubled, bytes));
    this.blocks.push(block);
    this.used = 0;
    return block;
  }
}
