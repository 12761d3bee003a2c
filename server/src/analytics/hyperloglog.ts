import { z } from "zod";

/**
 * Distinct callers per bucket. Exact (a set of 53-bit hashes) while small, then a HyperLogLog with
 * 1,024 one-byte registers (standard error ≈ 3.25 %). Merging any number of buckets costs at most
 * one pass over 1,024 registers each, so a 30-day view never touches raw callers.
 */
const P = 10;
const M = 1 << P;
const SMALL_LIMIT = 64;
const MERGE_SET_LIMIT = 4096;
const INVERSE_POWERS = Float64Array.from({ length: 64 }, (_, r) => 2 ** -r);

/** Two independent 32-bit hashes of a string (murmur3 finaliser over FNV-1a with two seeds). */
export function hashCaller(value: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x9747b28c;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  a = fmix(a);
  b = fmix(b ^ a);
  // 32 + 21 bits: a JS number holds it exactly.
  return (a >>> 0) * 2 ** 21 + (b >>> 11);
}

function fmix(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

function registerOf(hash: number): { index: number; rank: number } {
  const high = Math.floor(hash / 2 ** 21); // 32 bits
  const low = hash % 2 ** 21; // 21 bits
  const index = high >>> (32 - P);
  // The remaining 22 + 21 = 43 bits; rank = position of the first 1 bit.
  const rest = ((high << P) >>> 0) >>> 0;
  let rank: number;
  if (rest !== 0) rank = Math.clz32(rest) + 1;
  else rank = low === 0 ? 44 : 22 + (Math.clz32(low) - 11) + 1;
  return { index, rank: Math.min(rank, 44) };
}

/** A distinct counter as stored: its small set of hashes, or its registers in base64. */
export const distinctCounterJsonSchema = z.union([
  z.object({ s: z.array(z.number()) }),
  z.object({ r: z.string() }),
]);
export type DistinctCounterJson = z.infer<typeof distinctCounterJsonSchema>;

export class DistinctCounter {
  private small: Set<number> | null = new Set();
  private registers: Uint8Array | null = null;

  add(hash: number): void {
    if (this.small) {
      this.small.add(hash);
      if (this.small.size > SMALL_LIMIT) this.promote();
      return;
    }
    this.addToRegisters(hash);
  }

  private promote(): void {
    const small = this.small ?? new Set<number>();
    this.small = null;
    this.registers = new Uint8Array(M);
    for (const h of small) this.addToRegisters(h);
  }

  private addToRegisters(hash: number): void {
    const regs = this.registers;
    if (!regs) return;
    const { index, rank } = registerOf(hash);
    if ((regs[index] ?? 0) < rank) regs[index] = rank;
  }

  mergeInto(acc: DistinctAccumulator): void {
    if (this.small) for (const h of this.small) acc.add(h);
    else if (this.registers) acc.mergeRegisters(this.registers);
  }

  toJSON(): DistinctCounterJson {
    if (this.small) return { s: [...this.small] };
    return { r: Buffer.from(this.registers ?? new Uint8Array(M)).toString("base64") };
  }

  static fromJSON(data: DistinctCounterJson): DistinctCounter {
    const c = new DistinctCounter();
    if ("s" in data) c.small = new Set(data.s);
    else {
      c.small = null;
      c.registers = new Uint8Array(Buffer.from(data.r, "base64"));
    }
    return c;
  }
}

/** Union of many counters: exact while the union stays small, HyperLogLog registers after. */
export class DistinctAccumulator {
  private set: Set<number> | null = new Set();
  private registers: Uint8Array | null = null;

  add(hash: number): void {
    if (this.set) {
      this.set.add(hash);
      if (this.set.size > MERGE_SET_LIMIT) this.toRegisters();
      return;
    }
    const regs = this.registers;
    if (!regs) return;
    const { index, rank } = registerOf(hash);
    if ((regs[index] ?? 0) < rank) regs[index] = rank;
  }

  mergeRegisters(other: Uint8Array): void {
    if (this.set) this.toRegisters();
    const regs = this.registers;
    if (!regs) return;
    for (let i = 0; i < M; i++) {
      const v = other[i] ?? 0;
      if (v > (regs[i] ?? 0)) regs[i] = v;
    }
  }

  /** Adds another accumulator's callers (a day's union into a range's). */
  mergeAccumulator(other: DistinctAccumulator): void {
    if (other.set) for (const h of other.set) this.add(h);
    else if (other.registers) this.mergeRegisters(other.registers);
  }

  private toRegisters(): void {
    const set = this.set ?? new Set<number>();
    this.set = null;
    this.registers = new Uint8Array(M);
    for (const h of set) this.add(h);
  }

  estimate(): number {
    if (this.set) return this.set.size;
    const regs = this.registers ?? new Uint8Array(M);
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < M; i++) {
      const r = regs[i] ?? 0;
      sum += INVERSE_POWERS[r] ?? 0;
      if (r === 0) zeros += 1;
    }
    const alpha = 0.7213 / (1 + 1.079 / M);
    const raw = (alpha * M * M) / sum;
    // Linear counting is the better estimate in the small range.
    if (raw <= 2.5 * M && zeros > 0) return Math.round(M * Math.log(M / zeros));
    return Math.round(raw);
  }
}
