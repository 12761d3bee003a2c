import { int32At, itemAt } from "./checked-access.ts";
import { asSharedInt32, asSharedUint16, sharedInt32, sharedUint16 } from "./shared-arrays.ts";

/** Concatenated postings lists: term t's entries lie at offsets[t] .. offsets[t + 1]. */
export interface PackedPostings {
  offsets: Int32Array;
  docs: Int32Array;
  tfs: Uint16Array;
  /**
   * The runs of the terms whose entries come from more than one source (ascending `terms`): term
   * `terms[k]`'s runs are the (first entry, source) pairs `pairs[2 · starts[k]]` ..
   * `pairs[2 · starts[k + 1]]`.
   */
  runs: { terms: Int32Array; starts: Int32Array; pairs: Int32Array };
}

/**
 * The lists as they were at `PostingLists.capture()`, read later while the lists go on growing (a
 * snapshot's save reads them a piece at a time instead of copying them all first). Entries are
 * numbered as in `PackedPostings`: term t's are offsets[t] .. offsets[t + 1].
 */
export interface CapturedPostings {
  offsets: Int32Array;
  runs: PackedPostings["runs"];
  /** Copies entries `from` .. `to` into `docs` and `tfs` (either may be null), from their index 0. */
  read(from: number, to: number, docs: Int32Array | null, tfs: Uint16Array | null): void;
  /** Every entry copied into one array per field. */
  pack(): PackedPostings;
  /** Lets the lists reuse the regions they free again (call once, when done reading). */
  release(): void;
}

/**
 * The term whose entries include entry `entry` of lists packed by `offsets` (term t's entries are
 * offsets[t] .. offsets[t + 1]): the last term starting at or before it, empty ones after it
 * skipped. A binary search.
 */
export function termOfEntry(offsets: Int32Array, entry: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (int32At(offsets, mid) <= entry) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The first index in from .. to of ascending `slots` holding at least `slot` (`to` if none): a binary search. */
export function firstAtLeast(slots: Int32Array, from: number, to: number, slot: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (int32At(slots, mid) < slot) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Stretches of one term's entries (see `PostingLists.allowedStretches`). */
export interface Stretches {
  docs: Int32Array;
  tfs: Uint16Array;
  bounds: Int32Array;
  count: number;
}

/** Reads one stretch of a term's entries: `docs[i]`, `tfs[i]` for i in from..to. */
export type PostingVisitor = (docs: Int32Array, tfs: Uint16Array, from: number, to: number) => void;

// A list's region holds a power of two of entries. Regions up to SHARED_MAX_ENTRIES share pages
// that grow from 4,096 to a million entries (a small index stays small); a longer list has a page
// of its own.
const FIRST_PAGE_ENTRIES = 1 << 12;
const MAX_PAGE_ENTRIES = 1 << 20;
const SHARED_MAX_ENTRIES = 1 << 16;

/** A page that is still in use (a dropped one is null). */
function pageAt<T>(pages: readonly (T | null)[], page: number): T {
  const value = itemAt(pages, page);
  if (value === null) throw new RangeError(`page ${page} was dropped`);
  return value;
}

/** log2 of a power of two. */
const sizeClass = (entries: number): number => 31 - Math.clz32(entries);

/** The smallest power of two ≥ n (n ≥ 1). */
const roundUp = (n: number): number => (n <= 1 ? 1 : 2 ** Math.ceil(Math.log2(n)));

/**
 * Every term's postings of one field (body or title), in slot order, partitioned by data source,
 * packed for millions of terms: no object per term. A term's entries (slot and term frequency) lie
 * in one region of a shared page of typed arrays; a full region moves to one twice as large and its
 * old place is reused by the next list of that size. Per term the lists keep five integers — page,
 * start, capacity, length, last source — where an object with two typed arrays per term cost about
 * half a kilobyte.
 *
 * Entries of one source added in a row form a run, and a search skips the runs of sources the
 * question may not read, so a question touches only its own sources' entries (plus one check per
 * run), whatever else the server holds. A term whose entries all share one source (most terms) has
 * no runs stored.
 */
export class PostingLists {
  private terms = 0;
  private page = new Int32Array(0);
  private start = new Int32Array(0);
  private capacity = new Int32Array(0);
  private length = new Int32Array(0);
  /** The source of the term's last entry (of every entry while it has no runs), −1 while empty. */
  private lastSource = new Int32Array(0);
  /**
   * Per term whose entries come from more than one source: per run, the index of its first entry
   * and its source, as pairs (`count` of them).
   */
  private readonly runs = new Map<number, { pairs: Int32Array; count: number }>();
  private docPages: (Int32Array | null)[] = [];
  private tfPages: (Uint16Array | null)[] = [];
  /** Pages whose regions may be reused: not a loaded snapshot's, not a long list's own. */
  private shared: boolean[] = [];
  private bumpPage = -1;
  private bumpUsed = 0;
  /**
   * Captures not released yet: while there are any, a freed region is not reused (a capture may
   * still read it), so what a capture reads never changes under it.
   */
  private captures = 0;
  /** Per size class: free regions as (page, start) pairs. */
  private readonly free: number[][] = [];
  private readonly stretches: Stretches = {
    docs: new Int32Array(0),
    tfs: new Uint16Array(0),
    bounds: new Int32Array(8),
    count: 0,
  };

  /** Lists for `terms` terms, all empty. */
  constructor(terms = 0) {
    this.grow(terms);
    this.terms = terms;
  }

  get termCount(): number {
    return this.terms;
  }

  /** Adds an empty list; returns its term id. */
  addTerm(): number {
    this.grow(this.terms + 1);
    return this.terms++;
  }

  /** Number of entries of a term. */
  size(term: number): number {
    return int32At(this.length, term);
  }

  /** Appends an entry for `doc` (a slot above every slot already in the list) of data source `source`. */
  push(term: number, doc: number, tf: number, source: number): void {
    const at = int32At(this.length, term);
    if (source !== int32At(this.lastSource, term)) {
      if (at > 0) this.startRun(term, source, at);
      this.lastSource[term] = source;
    }
    if (at === int32At(this.capacity, term)) this.move(term, roundUp(at + 1));
    const page = int32At(this.page, term);
    const i = int32At(this.start, term) + at;
    pageAt(this.docPages, page)[i] = doc;
    pageAt(this.tfPages, page)[i] = Math.min(tf, 65_535);
    this.length[term] = at + 1;
  }

  /** Calls `visit` for each stretch of the term's entries whose source is allowed. */
  forAllowed(term: number, allowed: ReadonlySet<number>, visit: PostingVisitor): void {
    const found = this.allowedStretches(term, allowed);
    if (found === null) return;
    const { docs, tfs, bounds, count } = found;
    for (let s = 0; s < count; s++) visit(docs, tfs, int32At(bounds, 2 * s), int32At(bounds, 2 * s + 1));
  }

  /**
   * The stretches of the term's entries whose source is allowed (as few as can be: allowed runs one
   * after the other are one stretch): entries `docs[i]`, `tfs[i]` for i from `bounds[2s]` to
   * `bounds[2s + 1]`, s < `count`; null when there are none. For a loop over
   * the entries with everything in locals (the object and `bounds` are reused by the next call).
   */
  allowedStretches(term: number, allowed: ReadonlySet<number>): Stretches | null {
    const length = int32At(this.length, term);
    if (length === 0) return null;
    const page = int32At(this.page, term);
    const out = this.stretches;
    out.docs = pageAt(this.docPages, page);
    out.tfs = pageAt(this.tfPages, page);
    out.count = 0;
    const base = int32At(this.start, term);
    const runs = this.runs.get(term);
    if (runs === undefined) {
      if (!allowed.has(int32At(this.lastSource, term))) return null;
      out.bounds[0] = base;
      out.bounds[1] = base + length;
      out.count = 1;
      return out;
    }
    const { pairs, count } = runs;
    if (out.bounds.length < count * 2) out.bounds = new Int32Array(count * 2);
    for (let r = 0; r < count; r++) {
      if (!allowed.has(int32At(pairs, r * 2 + 1))) continue;
      const from = base + int32At(pairs, r * 2);
      const to = base + (r + 1 < count ? int32At(pairs, r * 2 + 2) : length);
      // Allowed runs one after the other make one stretch.
      if (out.count > 0 && int32At(out.bounds, out.count * 2 - 1) === from)
        out.bounds[out.count * 2 - 1] = to;
      else {
        out.bounds[out.count * 2] = from;
        out.bounds[out.count * 2 + 1] = to;
        out.count++;
      }
    }
    return out.count > 0 ? out : null;
  }

  /** Whether the term has an entry for a slot in `from..to` (inclusive): a binary search. */
  hasEntryIn(term: number, from: number, to: number): boolean {
    const length = int32At(this.length, term);
    if (length === 0) return false;
    const docs = pageAt(this.docPages, int32At(this.page, term));
    const base = int32At(this.start, term);
    const at = firstAtLeast(docs, base, base + length, from);
    return at < base + length && int32At(docs, at) <= to;
  }

  /** All lists concatenated. */
  pack(): PackedPostings {
    const captured = this.capture();
    try {
      return captured.pack();
    } finally {
      captured.release();
    }
  }

  /**
   * The lists as they are now, read later (see CapturedPostings): per term its place and length are
   * copied, the entries are not. Entries are only ever appended past a list's length or copied to a
   * new region, and no region is reused until `release()`, so the places copied stay valid.
   */
  capture(): CapturedPostings {
    const terms = this.terms;
    const offsets = new Int32Array(terms + 1);
    for (let t = 0, total = 0; t <= terms; t++) {
      offsets[t] = total;
      if (t < terms) total += int32At(this.length, t);
    }
    const page = this.page.slice(0, terms);
    const start = this.start.slice(0, terms);
    const docPages = [...this.docPages];
    const tfPages = [...this.tfPages];
    const withRuns = [...this.runs].sort(([a], [b]) => a - b);
    const starts = new Int32Array(withRuns.length + 1);
    withRuns.forEach(([, runs], k) => {
      starts[k + 1] = int32At(starts, k) + runs.count;
    });
    const pairs = new Int32Array(int32At(starts, withRuns.length) * 2);
    withRuns.forEach(([, runs], k) => {
      pairs.set(runs.pairs.subarray(0, runs.count * 2), int32At(starts, k) * 2);
    });
    const runs = { terms: Int32Array.from(withRuns, ([term]) => term), starts, pairs };
    const total = int32At(offsets, terms);
    this.captures++;
    let released = false;
    const read = (from: number, to: number, docs: Int32Array | null, tfs: Uint16Array | null) => {
      if (released) throw new RangeError("a released capture of posting lists was read");
      if (from < 0 || to > total || from > to) throw new RangeError("entries out of range");
      for (let t = termOfEntry(offsets, from), at = from; at < to; t++) {
        const end = Math.min(to, int32At(offsets, t + 1));
        if (end <= at) continue;
        const first = int32At(start, t) + at - int32At(offsets, t);
        const last = first + end - at;
        const p = int32At(page, t);
        docs?.set(pageAt(docPages, p).subarray(first, last), at - from);
        tfs?.set(pageAt(tfPages, p).subarray(first, last), at - from);
        at = end;
      }
    };
    return {
      offsets,
      runs,
      read,
      pack: () => {
        const docs = sharedInt32(total);
        const tfs = sharedUint16(total);
        read(0, total, docs, tfs);
        return { offsets, docs, tfs, runs };
      },
      release: () => {
        if (released) return;
        released = true;
        this.captures--;
      },
    };
  }

  /**
   * Lists over packed arrays, used in place (one page; a list appended to later moves out of it),
   * with their saved runs; `sourceOf` (each slot's source) gives each list's last source.
   */
  static unpack(packed: PackedPostings, terms: number, sourceOf: Int32Array): PostingLists {
    if (packed.offsets.length !== terms + 1) throw new RangeError("postings do not match the terms");
    const total = int32At(packed.offsets, terms);
    if (packed.docs.length !== total || packed.tfs.length !== total)
      throw new RangeError("postings do not match their offsets");
    const lists = new PostingLists(terms);
    // Shared, for a search's second thread (a snapshot's large sections load shared already).
    lists.docPages.push(asSharedInt32(packed.docs));
    lists.tfPages.push(asSharedUint16(packed.tfs));
    lists.shared.push(false);
    for (let t = 0; t < terms; t++) {
      const from = int32At(packed.offsets, t);
      const length = int32At(packed.offsets, t + 1) - from;
      if (length < 0) throw new RangeError("postings offsets descend");
      if (length === 0) continue;
      lists.page[t] = 0;
      lists.start[t] = from;
      lists.capacity[t] = length;
      lists.length[t] = length;
      lists.lastSource[t] = int32At(sourceOf, int32At(packed.docs, from + length - 1));
    }
    const { terms: runTerms, starts, pairs } = packed.runs;
    if (starts.length !== runTerms.length + 1 || pairs.length !== int32At(starts, runTerms.length) * 2)
      throw new RangeError("posting runs do not match their offsets");
    runTerms.forEach((t, k) => {
      const count = int32At(starts, k + 1) - int32At(starts, k);
      if (t < 0 || t >= terms || count < 2) throw new RangeError("posting runs do not match the terms");
      const from = int32At(starts, k) * 2;
      lists.runs.set(t, { pairs: pairs.slice(from, from + count * 2), count });
    });
    return lists;
  }

  /** Makes room for `terms` terms in the per-term columns. */
  private grow(terms: number): void {
    if (terms <= this.page.length) return;
    const size = Math.max(terms, this.page.length * 2, 1024);
    const widen = <T extends Int32Array | Uint8Array>(old: T, make: (n: number) => T, fill: number): T => {
      const grown = make(size);
      grown.fill(fill);
      grown.set(old);
      return grown;
    };
    this.page = widen(this.page, (n) => new Int32Array(n), -1);
    this.start = widen(this.start, (n) => new Int32Array(n), 0);
    this.capacity = widen(this.capacity, (n) => new Int32Array(n), 0);
    this.length = widen(this.length, (n) => new Int32Array(n), 0);
    this.lastSource = widen(this.lastSource, (n) => new Int32Array(n), -1);
  }

  /** Moves a term's entries to a region of `capacity` entries (a power of two), freeing the old one. */
  private move(term: number, capacity: number): void {
    const [page, start] = this.allocate(capacity);
    const length = int32At(this.length, term);
    const oldPage = int32At(this.page, term);
    if (oldPage >= 0) {
      const from = int32At(this.start, term);
      pageAt(this.docPages, page).set(pageAt(this.docPages, oldPage).subarray(from, from + length), start);
      pageAt(this.tfPages, page).set(pageAt(this.tfPages, oldPage).subarray(from, from + length), start);
      this.release(oldPage, from, int32At(this.capacity, term));
    }
    this.page[term] = page;
    this.start[term] = start;
    this.capacity[term] = capacity;
  }

  /** A free region of `capacity` entries (a power of two): reused, carved from a page, or a page of its own. */
  private allocate(capacity: number): [number, number] {
    if (capacity > SHARED_MAX_ENTRIES) return [this.addPage(capacity, false), 0];
    const reusable = this.captures === 0 ? this.free[sizeClass(capacity)] : undefined;
    if (reusable !== undefined && reusable.length > 0) {
      const start = reusable.pop() as number;
      return [reusable.pop() as number, start];
    }
    const room = this.bumpPage < 0 ? 0 : pageAt(this.docPages, this.bumpPage).length - this.bumpUsed;
    if (room < capacity) {
      // The rest of the full page becomes free regions (powers of two, largest first).
      for (let rest = room; rest > 0; ) {
        const piece = 2 ** sizeClass(rest);
        this.release(this.bumpPage, this.bumpUsed, piece);
        this.bumpUsed += piece;
        rest -= piece;
      }
      const previous = this.bumpPage < 0 ? 0 : pageAt(this.docPages, this.bumpPage).length;
      const entries = Math.max(capacity, Math.min(MAX_PAGE_ENTRIES, previous * 2 || FIRST_PAGE_ENTRIES));
      this.bumpPage = this.addPage(entries, true);
      this.bumpUsed = 0;
    }
    const start = this.bumpUsed;
    this.bumpUsed += capacity;
    return [this.bumpPage, start];
  }

  private addPage(entries: number, shared: boolean): number {
    this.docPages.push(sharedInt32(entries));
    this.tfPages.push(sharedUint16(entries));
    this.shared.push(shared);
    return this.docPages.length - 1;
  }

  /** Gives a region back: a shared page's for reuse; a long list's own page is dropped. */
  private release(page: number, start: number, capacity: number): void {
    if (this.shared[page] === true) {
      const k = sizeClass(capacity);
      while (this.free.length <= k) this.free.push([]);
      itemAt(this.free, k).push(page, start);
    } else if (start === 0 && pageAt(this.docPages, page).length === capacity) {
      this.docPages[page] = null;
      this.tfPages[page] = null;
    }
  }

  /** Opens a run of `source` at entry `at` (the first run is written when the second opens). */
  private startRun(term: number, source: number, at: number): void {
    let runs = this.runs.get(term);
    if (runs === undefined) {
      runs = { pairs: new Int32Array(8), count: 1 };
      runs.pairs[0] = 0;
      runs.pairs[1] = int32At(this.lastSource, term);
      this.runs.set(term, runs);
    }
    if (runs.count * 2 === runs.pairs.length) {
      const grown = new Int32Array(runs.pairs.length * 2);
      grown.set(runs.pairs);
      runs.pairs = grown;
    }
    runs.pairs[runs.count * 2] = at;
    runs.pairs[runs.count * 2 + 1] = source;
    runs.count++;
  }
}
