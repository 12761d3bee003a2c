/**
 * Strings by number (term ids, chunk slots) with a lookup the other way, for millions of them: the
 * strings as UTF-8 in one byte arena, and a hash index of (hash, number) pairs in one typed array,
 * probed linearly. Neither holds a JS object per string, so the garbage collector never walks them,
 * and a snapshot's NUL-separated section is loaded in one sequential pass over its bytes.
 *
 * Decoding a million chunk ids and putting them in a `Map` took 0.9–1.5 s at a restart, plus its
 * share of garbage collection, and about 100 bytes an id with its string; this takes about 0.4 s
 * and the id's bytes plus 16 to 40.
 *
 * The empty string is no string: `set(n, "")` clears `n`, `get("")` is −1. Keys are compared as
 * UTF-8, so strings that differ only in lone surrogates (which UTF-8 cannot carry) are one key, as
 * they already were once through a snapshot.
 */
export class StringTable {
  private arena: Buffer;
  private used = 0;
  /** Per number: its first byte in the arena and its byte length (−1: no string). */
  private starts: Int32Array;
  private lengths: Int32Array;
  /** Pairs: a string's hash, then its number + 1 (0: an empty pair). */
  private pairs: Int32Array;
  private mask: number;
  private count = 0;
  private scratch = Buffer.allocUnsafeSlow(256);

  constructor(expected = 0, arena?: Buffer) {
    this.arena = arena ?? Buffer.allocUnsafeSlow(Math.max(1024, expected * 16));
    this.starts = new Int32Array(Math.max(16, expected));
    this.lengths = new Int32Array(Math.max(16, expected)).fill(-1);
    const capacity = capacityFor(expected);
    this.pairs = new Int32Array(capacity * 2);
    this.mask = capacity - 1;
  }

  /** How many numbers hold a string. */
  get size(): number {
    return this.count;
  }

  /** The number holding `key`, −1 when none does. */
  get(key: string): number {
    if (key.length === 0) return -1;
    const length = this.encode(key);
    const bytes = this.scratch;
    const hash = hashOf(bytes, 0, length);
    const pairs = this.pairs;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const stored = pairs[2 * i + 1] ?? 0;
      if (stored === 0) return -1;
      if (pairs[2 * i] === hash && this.equals(stored - 1, bytes, length)) return stored - 1;
    }
  }

  /** The string of number `n`, null when it has none. */
  at(n: number): string | null {
    const length = this.lengths[n] ?? -1;
    if (length < 0) return null;
    const start = this.starts[n] ?? 0;
    return this.arena.toString("utf8", start, start + length);
  }

  /**
   * Gives number `n` the string `key` (replacing the one it had). No other number may hold `key`:
   * the caller looks it up first.
   */
  set(n: number, key: string): void {
    this.delete(n);
    if (key.length === 0) return;
    const length = this.encode(key);
    if (this.used + length > this.arena.byteLength) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.used + length, this.arena.byteLength * 2));
      this.arena.copy(grown, 0, 0, this.used);
      this.arena = grown;
    }
    this.scratch.copy(this.arena, this.used, 0, length);
    if (!this.place(n, this.used, length))
      throw new RangeError("string table: the string is held by another number");
    this.used += length;
  }

  /** Takes number `n`'s string away (nothing when it has none). */
  delete(n: number): void {
    const length = this.lengths[n] ?? -1;
    if (length < 0) return;
    const start = this.starts[n] ?? 0;
    const pairs = this.pairs;
    const mask = this.mask;
    let hole = hashOf(this.arena, start, start + length) & mask;
    for (let stored = pairs[2 * hole + 1] ?? 0; stored !== n + 1; stored = pairs[2 * hole + 1] ?? 0) {
      if (stored === 0) throw new Error("string table: a string is missing from its index");
      hole = (hole + 1) & mask;
    }
    // Backward shift: a later pair of the same probe run moves into the hole unless its home lies
    // cyclically in (hole, at], where a probe from its home never passes the hole.
    for (let at = (hole + 1) & mask; (pairs[2 * at + 1] ?? 0) !== 0; at = (at + 1) & mask) {
      const home = (pairs[2 * at] ?? 0) & mask;
      const stays = hole <= at ? hole < home && home <= at : hole < home || home <= at;
      if (stays) continue;
      pairs[2 * hole] = pairs[2 * at] ?? 0;
      pairs[2 * hole + 1] = pairs[2 * at + 1] ?? 0;
      hole = at;
    }
    pairs[2 * hole] = 0;
    pairs[2 * hole + 1] = 0;
    this.lengths[n] = -1;
    this.count--;
  }

  /** The strings of numbers 0 … `numbers` − 1, NUL-separated UTF-8, "" for none (a snapshot section). */
  encoded(numbers: number): Uint8Array {
    let total = Math.max(0, numbers - 1);
    for (let n = 0; n < numbers; n++) total += Math.max(0, this.lengths[n] ?? -1);
    const out = Buffer.allocUnsafeSlow(total);
    let at = 0;
    for (let n = 0; n < numbers; n++) {
      if (n > 0) out[at++] = 0;
      const length = this.lengths[n] ?? -1;
      if (length <= 0) continue;
      const start = this.starts[n] ?? 0;
      this.arena.copy(out, at, start, start + length);
      at += length;
    }
    return out;
  }

  /**
   * The table of an `encoded` section holding `numbers` strings, its bytes used in place. Throws a
   * RangeError when the count is wrong or two numbers hold the same string.
   */
  static decoded(bytes: Uint8Array, numbers: number): StringTable {
    const arena = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const table = new StringTable(numbers, arena);
    table.used = arena.byteLength;
    const end = arena.byteLength;
    let n = 0;
    // indexOf, not a loop over the bytes: a million strings in tens of milliseconds, not a second.
    for (let start = 0; numbers > 0 && start <= end; n++) {
      const nul = arena.indexOf(0, start);
      const stop = nul < 0 ? end : nul;
      if (n >= numbers) throw new RangeError(`more than ${numbers} strings`);
      if (stop > start && !table.place(n, start, stop - start))
        throw new RangeError("a string is held twice");
      start = stop + 1;
    }
    if (n !== numbers) throw new RangeError(`expected ${numbers} strings, found ${n}`);
    return table;
  }

  /**
   * Records bytes already in the arena as number `n`'s string and indexes them; false (and nothing
   * recorded) when another number holds the same string.
   */
  private place(n: number, start: number, length: number): boolean {
    if ((this.count + 1) * 2 > this.mask + 1) this.rehash((this.mask + 1) * 2);
    const arena = this.arena;
    const hash = hashOf(arena, start, start + length);
    const pairs = this.pairs;
    let i = hash & this.mask;
    for (let stored = pairs[2 * i + 1] ?? 0; stored !== 0; stored = pairs[2 * i + 1] ?? 0) {
      if (pairs[2 * i] === hash && this.equals(stored - 1, arena.subarray(start, start + length), length))
        return false;
      i = (i + 1) & this.mask;
    }
    if (n >= this.starts.length) {
      const capacity = Math.max(n + 1, this.starts.length * 2);
      const starts = new Int32Array(capacity);
      starts.set(this.starts);
      const lengths = new Int32Array(capacity).fill(-1);
      lengths.set(this.lengths);
      this.starts = starts;
      this.lengths = lengths;
    }
    this.starts[n] = start;
    this.lengths[n] = length;
    pairs[2 * i] = hash;
    pairs[2 * i + 1] = n + 1;
    this.count++;
    return true;
  }

  private equals(n: number, bytes: Uint8Array, length: number): boolean {
    if (this.lengths[n] !== length) return false;
    const start = this.starts[n] ?? 0;
    const arena = this.arena;
    for (let i = 0; i < length; i++) if (arena[start + i] !== bytes[i]) return false;
    return true;
  }

  /** Writes the key's UTF-8 into the scratch buffer; returns its length. */
  private encode(key: string): number {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    if (key.length * 3 > this.scratch.byteLength) this.scratch = Buffer.allocUnsafeSlow(key.length * 3);
    return this.scratch.write(key, 0, "utf8");
  }

  private put(hash: number, n: number): void {
    const pairs = this.pairs;
    let i = hash & this.mask;
    while ((pairs[2 * i + 1] ?? 0) !== 0) i = (i + 1) & this.mask;
    pairs[2 * i] = hash;
    pairs[2 * i + 1] = n + 1;
  }

  private rehash(capacity: number): void {
    const old = this.pairs;
    this.pairs = new Int32Array(capacity * 2);
    this.mask = capacity - 1;
    for (let i = 0; i < old.length; i += 2) {
      const stored = old[i + 1] ?? 0;
      if (stored !== 0) this.put(old[i] ?? 0, stored - 1);
    }
  }
}

/** A power of two at least twice `expected` (and at least 16). */
function capacityFor(expected: number): number {
  let capacity = 16;
  while (capacity < expected * 2) capacity *= 2;
  return capacity;
}

/** FNV-1a over the bytes, then mixed so that the low bits (the home pair) vary. */
function hashOf(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (bytes[i] ?? 0), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}
