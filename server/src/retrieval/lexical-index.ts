import { readsAsEnglish } from "../text/analyzers.ts";
import { type ScanRange, scanSlots } from "./block-scan.ts";
import { float64At, int32At, numberAt } from "./checked-access.ts";
import { type CapturedPostings, type PackedPostings, PostingLists } from "./posting-lists.ts";
import { bm25Part, QueryLists, type SearchScratch } from "./query-lists.ts";
import { RecordArena, type RecordPlace } from "./record-arena.ts";
import { ScanHelper } from "./scan-helper.ts";
import type { ScanJob } from "./scan-protocol.ts";
import { asSharedInt32, sharedFloat64, sharedInt32 } from "./shared-arrays.ts";
import { StringTable } from "./string-table.ts";
import { TermVariants } from "./term-variants.ts";
import { analyzeLatinWord, analyzeTokens, stopWords, tokenize } from "./text-analysis.ts";
import { TopSlots } from "./top-slots.ts";
import { type ExpansionWeights, expandWords, sharedWordNet } from "./wordnet.ts";

/** BM25 parameters and the proximity window, measured by bench/src/retrieval-quality.ts (see docs in calibration.ts). */
export interface LexicalParams {
  k1: number;
  b: number;
  /** Width, in index terms, of the sliding window for the proximity feature. */
  window: number;
  /** How many BM25 candidates the reranker looks at. */
  candidates: number;
  /**
   * Weight of a query term found in the chunk's title or heading path, as a share of its IDF, added to
   * the body's BM25 (a field-weighted BM25: help articles name their topic in the title, not the body).
   */
  titleWeight: number;
  /** Correct a query word the index does not know to a known word one edit away. */
  typos: boolean;
  /** Query expansion through WordNet: the weight share of each relation, or null for none. */
  synonyms: ExpansionWeights | null;
  /**
   * Weight share of an index term that contains a query term at an edge or is contained in it
   * ("jahr"/"jahren", "zeit"/"spielzeit"; see term-variants.ts), 0 for none. Questions that read as
   * English get none: Porter2 already joins their forms, and the help-center set lost first
   * citations with them.
   */
  variants: number;
}

// k1, b and window chosen by the grid in `bench/src/retrieval-quality.ts --fit` on the tuning slice.
export const defaultLexicalParams: LexicalParams = {
  k1: 1.2,
  b: 0.75,
  window: 8,
  candidates: 100,
  titleWeight: 2,
  typos: true,
  synonyms: { synonym: 0.5, derived: 0.3, broader: 0.2, defined: 0.5 },
  variants: 0.3,
};

/** Per-candidate lexical evidence; every feature but `bm25` lies in 0..1. */
export interface LexicalFeatures {
  bm25: number;
  /** BM25 divided by the query's largest possible BM25 (every term with tf → ∞). */
  bm25Norm: number;
  /** BM25 relative to the best candidate of this query. */
  bm25Rel: number;
  /** IDF-weighted share of the query's terms found in the chunk (its title and heading path included). */
  coverage: number;
  /** IDF-weighted share of the query's terms found together inside one window of the chunk (or in its title). */
  proximity: number;
  /** IDF-weighted share of the query's adjacent term pairs found adjacent in the chunk. */
  bigram: number;
  /** IDF-weighted share of the query's terms found in the title or heading path. */
  title: number;
  /** IDF-weighted share of the query's terms found in the chunk's best-matching sentence (or its title). */
  sentence: number;
  /** 1 when the question asks for a quantity or date and the best sentence holds a number it does not. */
  numberMatch: number;
  /** 1 when the question asks for a quantity or date and the chunk holds no number at all. */
  numberMissing: number;
  /**
   * IDF-weighted share of the query's terms found exactly, as a word sharing their first five letters
   * (variants the stemmer keeps apart: "Normans"/"Normandy", "mathematician"/"mathematics") or as a
   * word containing them or contained in them at an edge ("jahr"/"jahren", "zeit"/"spielzeit").
   */
  prefixCoverage: number;
  /** IDF-weighted share of the query's terms found anywhere in the chunk's document (title and every matching chunk). */
  docCoverage: number;
  /** The document's evidence (its best chunk plus half its second best) relative to the best document of this query. */
  docRel: number;
}

export interface LexicalCandidate {
  slot: number;
  features: LexicalFeatures;
}

export type { CapturedPostings, PackedPostings };

/**
 * Everything a LexicalIndex holds, as plain arrays (for a snapshot on disk). Captured in one
 * synchronous step: arrays changed in place are copied, append-only ones are shared up to their use.
 */
export interface LexicalState {
  /** The terms by id, NUL-separated UTF-8 (as many as `df` is long). */
  terms: Uint8Array;
  df: Int32Array;
  numeric: Uint8Array;
  prefixes: string[];
  prefixOfTerm: Int32Array;
  postings: PackedPostings;
  titlePostings: PackedPostings;
  /** Per-slot columns, each slotTotal long. */
  columns: Record<SlotColumn, Int32Array>;
  /** The forward index's blocks (`RecordArena`), each cut to what is used. */
  blocks: Uint8Array[];
  counts: { slotTotal: number; totalLength: number; liveCount: number; deadCount: number };
}

/** A LexicalState as `captureState` takes it: the postings read later, until `release()`. */
export interface CapturedLexicalState extends Omit<LexicalState, "postings" | "titlePostings"> {
  postings: CapturedPostings;
  titlePostings: CapturedPostings;
  release(): void;
}

export const slotColumns = [
  "docLength",
  "titleLength",
  "sentenceCount",
  "docSource",
  "docGroup",
  "recordBlock",
  "recordOffset",
] as const;
export type SlotColumn = (typeof slotColumns)[number];

interface PreparedQuery {
  termIds: number[];
  weights: Float64Array;
  totalWeight: number;
  /** Pair keys of adjacent query terms and their weights. */
  bigrams: Map<number, number>;
  bigramWeight: number;
  expectsNumber: boolean;
  /** Known query term id → its position. */
  positionOf: Map<number, number>;
  /** Prefix id of a query term (one some corpus term has) → the positions of the query terms with it. */
  prefixPositions: Map<number, number[]>;
  /** Index terms that are variants of query terms (see term-variants.ts) → those terms' positions. */
  variants: Map<number, number[]>;
  /**
   * What BM25 sums over: the known query terms (body and title field) and the related index terms
   * standing in for them (body only, at a reduced weight).
   */
  scoring: ScoringTerm[];
}

interface ScoringTerm {
  id: number;
  /** Its BM25 weight: the IDF, scaled down for a related term. */
  weight: number;
  /** Bit of the query term it matches for (the first 31 query terms), 0 beyond. */
  bit: number;
  /** Whether a match in the title field counts too. */
  inTitle: boolean;
}

/** A query term's bit in the per-slot match masks: the first 31 terms have one. */
const bitOf = (position: number): number => (position < 31 ? 1 << position : 0);

const alphabet = "abcdefghijklmnopqrstuvwxyz";

/** Raw tokens remembered with their term id (see tokenTermId). */
const TOKEN_MEMO_ENTRIES = 1 << 17;

// Bounds on the work one question costs (issue #34): a 400-letter word used to hold the loop for
// 37 s in typo correction, thousands of words for seconds in the per-term loops.
/** Query tokens read: a question's first 256 (far beyond any real question; the rest is ignored). */
export const MAX_QUERY_TOKENS = 256;
/**
 * Slots a search takes at a time (`topInBlocks`): their scores and lengths (192 KB) stay in the
 * cache while every list adds its postings for them.
 */
const SLOT_BLOCK = 1 << 14;
/**
 * Postings a search must add before a second thread takes a share of them (`scanAll`): handing a job
 * over and waiting for it costs some tens of microseconds, and 100,000 postings about half a
 * millisecond.
 */
const PARALLEL_ENTRIES = 100_000;
/**
 * Chunks (of whole blocks) a search on two threads takes in turn (`scanAll`): once one thread has
 * no chunk left to take, it waits at most for the other's last one, about 1/32 of the work.
 */
const SCAN_CHUNKS = 32;
/** Distinct query terms scored: the first 64 (features, variants and expansion are O(terms²) at most). */
export const MAX_QUERY_TERMS = 64;
/** Words longer than this are never typo-corrected: 54·n + 25 edits of n letters each is O(n²). */
export const MAX_TYPO_WORD_LENGTH = 24;
/** Unknown words corrected per question: each costs ≤ 54·24 + 25 = 1,321 candidate stems. */
export const MAX_TYPO_WORDS = 8;

/** Every string one edit away from a word (deletion, transposition, substitution, insertion). */
function editsOf(word: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i <= word.length; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    if (tail) out.add(head + tail.slice(1));
    if (tail.length > 1) out.add(head + tail.charAt(1) + tail.charAt(0) + tail.slice(2));
    for (const c of alphabet) {
      if (tail) out.add(head + c + tail.slice(1));
      out.add(head + c + tail);
    }
  }
  out.delete(word);
  return out;
}

// Questions whose answer is a number or a date (answer-type matching, a classic QA retrieval feature).
const quantityQuestion =
  /\b(when|what year|which year|what decade|which decade|what century|how many|how much|how long|how old|how far|how large|how big|how tall|how often|what percentage|what percent|what date|what time|what number)\b/i;

/** Words sharing their first five letters count as variants of each other for `prefixCoverage`. */
function prefixOf(term: string): string {
  return term.length > 5 ? term.slice(0, 5) : term;
}

/** Sentence-ish spans: split after . ! ? or line breaks. */
function splitSentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim() !== "");
}

/**
 * The evidence of the documents (groups) one search pooled: the query terms any of its chunks
 * matched, its best and second-best chunk scores. Arrays indexed by document number, reset by a
 * generation stamp instead of being cleared, so a search that touches half a million chunks makes
 * no garbage and no map lookups.
 */
class GroupTable {
  private stamp = new Int32Array(0);
  private generation = 0;
  private mask = new Int32Array(0);
  private best = new Float64Array(0);
  private second = new Float64Array(0);
  private seen = new Int32Array(0);
  private seenCount = 0;
  /** The largest best + half the second best of any document this search pooled. */
  bestEvidence = 0;

  reset(): void {
    this.seenCount = 0;
    this.bestEvidence = 0;
    if (++this.generation === 2_147_483_647) {
      this.stamp.fill(0);
      this.generation = 1;
    }
  }

  add(group: number, score: number, mask: number): void {
    if (group >= this.stamp.length) this.grow(group + 1);
    if (this.stamp[group] !== this.generation) {
      this.stamp[group] = this.generation;
      this.mask[group] = 0;
      this.best[group] = 0;
      this.second[group] = 0;
      if (this.seenCount === this.seen.length)
        this.seen = widened(this.seen, Math.max(1024, this.seen.length * 2));
      this.seen[this.seenCount++] = group;
    }
    this.mask[group] = int32At(this.mask, group) | mask;
    const best = float64At(this.best, group);
    if (score > best) {
      this.second[group] = best;
      this.best[group] = score;
    } else if (score > float64At(this.second, group)) this.second[group] = score;
  }

  /** The document's best + half its second best (0 when this search added none of it). */
  evidence(group: number): number {
    return this.has(group) ? float64At(this.best, group) + 0.5 * float64At(this.second, group) : 0;
  }

  /** Whether this search added evidence of the document. */
  has(group: number): boolean {
    return group < this.stamp.length && this.stamp[group] === this.generation;
  }

  /** Sets `bestEvidence` once every slot was added. */
  finish(): void {
    for (let i = 0; i < this.seenCount; i++) {
      const group = int32At(this.seen, i);
      this.bestEvidence = Math.max(
        this.bestEvidence,
        float64At(this.best, group) + 0.5 * float64At(this.second, group),
      );
    }
  }

  /** The document's evidence, null when this search touched none of its chunks. */
  of(group: number): { mask: number; best: number; second: number } | null {
    if (group < 0 || group >= this.stamp.length || this.stamp[group] !== this.generation) return null;
    return {
      mask: int32At(this.mask, group),
      best: float64At(this.best, group),
      second: float64At(this.second, group),
    };
  }

  private grow(groups: number): void {
    const size = Math.max(groups, this.stamp.length * 2, 1024);
    this.stamp = widened(this.stamp, size);
    this.mask = widened(this.mask, size);
    this.best = widened(this.best, size);
    this.second = widened(this.second, size);
  }
}

/** A copy of `values` in a new array of `size` elements, zero beyond them. */
function widened<T extends Int32Array | Float64Array>(values: T, size: number): T {
  const grown = new (values.constructor as new (length: number) => T)(size);
  grown.set(values);
  return grown;
}

const pairKey = (a: number, b: number): number => a * 16_777_216 + b;

/** A growable Int32Array: per-slot columns cost 4 bytes a slot instead of an object each. */
class IntColumn {
  values: Int32Array;

  /** Shared (shared-arrays.ts): a search's second thread reads the lengths and documents. */
  constructor(capacity = 1024) {
    this.values = sharedInt32(capacity);
  }

  /** A column over `values` as they are (grown by copying once they are full). */
  static of(values: Int32Array): IntColumn {
    const column = new IntColumn(0);
    column.values = values;
    return column;
  }

  get(index: number): number {
    return int32At(this.values, index);
  }

  set(index: number, value: number): void {
    if (index >= this.values.length) {
      const grown = sharedInt32(Math.max(index + 1, this.values.length * 2));
      grown.set(this.values);
      this.values = grown;
    }
    this.values[index] = value;
  }
}

/**
 * An in-memory inverted index (BM25 candidates) with a forward index (term sequences for proximity and
 * phrase features). Slots are append-only; removed slots are skipped and reclaimed by `compact()`.
 * Per slot the forward index keeps one record in a shared arena (`RecordArena`) — the term ids, then
 * the title's term ids, then the sentence starts — plus a few integer columns, so a slot costs no JS
 * objects.
 */
export class LexicalIndex {
  /** Term id ↔ term. */
  private terms = new StringTable();
  private termCount = 0;
  /** Raw token → index term id, −1 for a stop word (skips stemming and a second lookup on add). */
  private readonly termIdByToken = new Map<string, number>();
  /** Per term: live slots holding it (the columns below are per term too, `termCount` long). */
  private df = new IntColumn();
  private postings = new PostingLists();
  /** Per term: the slots whose title or heading path holds it (tf 1). */
  private titlePostings = new PostingLists();
  private numeric = new IntColumn();
  private readonly prefixIdByPrefix = new Map<string, number>();
  private prefixOfTerm = new IntColumn();
  private readonly variants = new TermVariants();
  private slotTotal = 0;
  /** Term count per slot; −1 once removed. */
  private docLength = new IntColumn();
  private titleLength = new IntColumn();
  private sentenceCount = new IntColumn();
  private docSource = new IntColumn();
  /** Per slot: the number of its document (chunks of one document share it), −1 when unknown. */
  private docGroup = new IntColumn();
  /**
   * Each document's slots as a chain, highest slot first: per group its first slot + 1, per slot the
   * next slot of its group + 1 (0 ends a chain). Removed slots stay in it until `compact`.
   */
  private groupFirst = new IntColumn();
  private groupNext = new IntColumn();
  private recordBlock = new IntColumn();
  private recordOffset = new IntColumn();
  private arena = new RecordArena();
  private totalLength = 0;
  private liveCount = 0;
  private deadCount = 0;
  /** Per slot during a search: its score (zero between searches). */
  private scratch: Float64Array = new Float64Array(0);
  /** A bit per slot for the tie fallback (`QueryLists.offerInListOrder`; zero between searches). */
  private marks = new Int32Array(0);
  /** Per slot its length norm, computed a block at a time by the searches (`QueryLists.normBlock`). */
  private norms: Float64Array = new Float64Array(0);
  /** Per block of slots the generation its norms are of (0: none yet). */
  private normed: Int32Array = new Int32Array(0);
  /** Moves on with every change to the lengths or their average, so the norms are computed again. */
  private generation = 1;
  /** Per slot during `featuresFor`: bits of the query terms it matched (body or title, first 31 terms). */
  private maskScratch = new Int32Array(0);
  private readonly groups = new GroupTable();

  /**
   * `slotBlock`: slots a search takes at a time (tests set a small one to compare a search made
   * block by block with one made a list at a time). `parallelEntries` (PARALLEL_ENTRIES) and `chunks`
   * (how two threads share a search's chunks: each takes the next one left, or, in tests that must
   * know which thread scored what, every other one) are for tests too.
   */
  constructor(
    readonly params: LexicalParams = defaultLexicalParams,
    private readonly slotBlock = SLOT_BLOCK,
    private readonly parallelEntries = PARALLEL_ENTRIES,
    private readonly chunks: "claimed" | "alternate" = "claimed",
  ) {
    if (slotBlock % 32 !== 0) throw new RangeError("a block of slots is a whole number of 32-slot words");
  }

  get size(): number {
    return this.liveCount;
  }

  get slotCount(): number {
    return this.slotTotal;
  }

  get deadSlots(): number {
    return this.deadCount;
  }

  /**
   * The index's state as plain arrays (see LexicalState), the postings as a capture read later;
   * the index is unchanged, and may change after without changing what the capture reads.
   */
  captureState(): CapturedLexicalState {
    const postings = this.postings.capture();
    const titlePostings = this.titlePostings.capture();
    const slots = this.slotTotal;
    const column = (c: IntColumn) => c.values.slice(0, slots);
    return {
      terms: this.terms.encoded(this.termCount),
      df: this.df.values.slice(0, this.termCount),
      numeric: Uint8Array.from(this.numeric.values.subarray(0, this.termCount)),
      prefixes: [...this.prefixIdByPrefix.keys()],
      prefixOfTerm: this.prefixOfTerm.values.slice(0, this.termCount),
      postings,
      titlePostings,
      columns: {
        docLength: column(this.docLength),
        titleLength: column(this.titleLength),
        sentenceCount: column(this.sentenceCount),
        docSource: column(this.docSource),
        docGroup: column(this.docGroup),
        recordBlock: column(this.recordBlock),
        recordOffset: column(this.recordOffset),
      },
      blocks: this.arena.capture(),
      counts: {
        slotTotal: slots,
        totalLength: this.totalLength,
        liveCount: this.liveCount,
        deadCount: this.deadCount,
      },
      release: () => {
        postings.release();
        titlePostings.release();
      },
    };
  }

  /**
   * An index holding a saved or captured state, exactly as it was (term ids and slots included);
   * a capture's postings are copied (the capture is left to its owner to release).
   */
  static fromState(params: LexicalParams, state: LexicalState | CapturedLexicalState): LexicalIndex {
    const index = new LexicalIndex(params);
    const terms = state.df.length;
    if (state.numeric.length !== terms || state.prefixOfTerm.length !== terms)
      throw new RangeError("term arrays do not match");
    index.terms = StringTable.decoded(state.terms, terms);
    index.termCount = terms;
    index.variants.addAll(index.allTerms());
    state.prefixes.forEach((prefix, id) => {
      index.prefixIdByPrefix.set(prefix, id);
    });
    // Typed arrays as loaded (a million-term JS array each cost a restart seconds of GC).
    index.df = IntColumn.of(state.df);
    index.numeric = IntColumn.of(Int32Array.from(state.numeric));
    index.prefixOfTerm = IntColumn.of(state.prefixOfTerm);
    const sources = state.columns.docSource;
    const packed = (p: PackedPostings | CapturedPostings) => ("read" in p ? p.pack() : p);
    index.postings = PostingLists.unpack(packed(state.postings), terms, sources);
    index.titlePostings = PostingLists.unpack(packed(state.titlePostings), terms, sources);
    const { slotTotal } = state.counts;
    const column = (values: Int32Array) => {
      if (values.length !== slotTotal) throw new RangeError("slot columns do not match");
      const c = new IntColumn(0);
      c.values = values;
      return c;
    };
    // Shared (a search's second thread reads them); the other columns as loaded.
    index.docLength = column(asSharedInt32(state.columns.docLength));
    index.titleLength = column(state.columns.titleLength);
    index.sentenceCount = column(state.columns.sentenceCount);
    index.docSource = column(state.columns.docSource);
    index.docGroup = column(asSharedInt32(state.columns.docGroup));
    index.recordBlock = column(state.columns.recordBlock);
    index.recordOffset = column(state.columns.recordOffset);
    index.arena = new RecordArena(state.blocks);
    index.slotTotal = slotTotal;
    index.totalLength = state.counts.totalLength;
    index.liveCount = state.counts.liveCount;
    index.deadCount = state.counts.deadCount;
    index.groupNext = new IntColumn(Math.max(1024, slotTotal));
    for (let slot = 0; slot < slotTotal; slot++) index.chain(slot, index.docGroup.get(slot));
    return index;
  }

  /**
   * Adds one chunk; returns its slot. `source` is a small integer naming its data source, `group` one
   * naming its document (chunks of a document pool their evidence), −1 for none.
   */
  add(text: string, titleText: string, source: number, group = -1): number {
    const ids: number[] = [];
    const starts: number[] = [];
    for (const sentence of splitSentences(text)) {
      starts.push(ids.length);
      for (const token of tokenize(sentence)) {
        const id = this.tokenTermId(token);
        if (id >= 0) ids.push(id);
      }
    }
    const tf = new Map<number, number>();
    for (const id of ids) tf.set(id, (tf.get(id) ?? 0) + 1);
    const slot = this.slotTotal;
    for (const [id, count] of tf) {
      this.postings.push(id, slot, count, source);
      this.df.set(id, this.df.get(id) + 1);
    }
    const titleIds = new Set<number>();
    for (const token of tokenize(titleText)) {
      const id = this.tokenTermId(token);
      if (id >= 0) titleIds.add(id);
    }
    for (const id of titleIds) this.titlePostings.push(id, slot, 1, source);
    this.store(slot, ids, [...titleIds], starts, source, group);
    this.slotTotal++;
    this.totalLength += ids.length;
    this.liveCount++;
    this.lengthsChanged();
    return slot;
  }

  remove(slot: number): void {
    if (!this.isLive(slot)) return;
    const ids = this.termsOf(slot);
    for (const id of new Set(ids)) this.df.set(id, this.df.get(id) - 1);
    this.totalLength -= ids.length;
    this.docLength.set(slot, -1);
    this.liveCount--;
    this.deadCount++;
    this.lengthsChanged();
  }

  private lengthsChanged(): void {
    this.generation = (this.generation % 0x7fff_ffff) + 1;
  }

  isLive(slot: number): boolean {
    return slot < this.slotTotal && (this.docLength.values[slot] ?? -1) >= 0;
  }

  /**
   * Packs every posting list into one page per field, as a snapshot load leaves them: lists grown
   * entry by entry sit in regions of a power of two, about half again their entries' bytes (a
   * rebuild from the table). Same entries in the same order: searches do not change. A list
   * appended to later moves out of the page, as after a load.
   */
  packPostings(): void {
    const sources = this.docSource.values;
    this.postings = PostingLists.unpack(this.postings.pack(), this.termCount, sources);
    this.titlePostings = PostingLists.unpack(this.titlePostings.pack(), this.termCount, sources);
  }

  /**
   * Rebuilds postings without dead slots. Returns the old→new slot map (−1 for removed) so callers can
   * renumber what they keep per slot.
   */
  compact(): Int32Array {
    const remap = new Int32Array(this.slotTotal).fill(-1);
    const old = {
      docLength: this.docLength,
      titleLength: this.titleLength,
      sentenceCount: this.sentenceCount,
      docSource: this.docSource,
      docGroup: this.docGroup,
      recordBlock: this.recordBlock,
      recordOffset: this.recordOffset,
      arena: this.arena,
      total: this.slotTotal,
    };
    const capacity = Math.max(1024, this.liveCount);
    this.docLength = new IntColumn(capacity);
    this.titleLength = new IntColumn(capacity);
    this.sentenceCount = new IntColumn(capacity);
    this.docSource = new IntColumn(capacity);
    this.docGroup = new IntColumn(capacity);
    this.recordBlock = new IntColumn(capacity);
    this.recordOffset = new IntColumn(capacity);
    this.groupFirst = new IntColumn();
    this.groupNext = new IntColumn(capacity);
    this.arena = new RecordArena();
    this.postings = new PostingLists(this.postings.termCount);
    this.titlePostings = new PostingLists(this.titlePostings.termCount);
    let next = 0;
    for (let slot = 0; slot < old.total; slot++) {
      const length = old.docLength.get(slot);
      if (length < 0) continue;
      remap[slot] = next;
      const titles = old.titleLength.get(slot);
      const sentences = old.sentenceCount.get(slot);
      const at = { block: old.recordBlock.get(slot), offset: old.recordOffset.get(slot) };
      const source = old.docSource.get(slot);
      const place = this.arena.copy(old.arena, at, length + titles + sentences);
      this.place(next, place, length, titles, sentences, source, old.docGroup.get(slot));
      const record = old.arena.read(at, 0, length + titles);
      const tf = new Map<number, number>();
      for (const id of record.subarray(0, length)) tf.set(id, (tf.get(id) ?? 0) + 1);
      for (const [id, count] of tf) this.postings.push(id, next, count, source);
      for (const id of record.subarray(length, length + titles)) {
        this.titlePostings.push(id, next, 1, source);
      }
      next++;
    }
    this.slotTotal = next;
    this.deadCount = 0;
    this.lengthsChanged();
    return remap;
  }

  /**
   * Near-duplicate signature of a slot: a hash of its whole term sequence and the hashes of its term
   * 3-shingles (computed from the forward index, so no re-tokenising at query time).
   */
  signature(slot: number): { exact: number; shingles: Set<number> } {
    const ids = this.termsOf(slot);
    let exact = 0x811c9dc5;
    const shingles = new Set<number>();
    for (let i = 0; i < ids.length; i++) {
      const id = int32At(ids, i);
      exact = Math.imul(exact ^ id, 0x01000193) >>> 0;
      if (i >= 2) {
        const h =
          Math.imul(int32At(ids, i - 2), 73_856_093) ^
          Math.imul(int32At(ids, i - 1), 19_349_663) ^
          Math.imul(id, 83_492_791);
        shingles.add(h >>> 0);
      }
    }
    if (ids.length > 0 && ids.length < 3) shingles.add(exact);
    return { exact, shingles };
  }

  /** BM25 candidates among live slots whose source is allowed, with reranking features. */
  search(
    query: string,
    allowedSources: ReadonlySet<number>,
    limit = this.params.candidates,
  ): LexicalCandidate[] {
    const prepared = this.prepare(query);
    if (prepared.termIds.length === 0 || this.liveCount === 0) return [];
    const { k1, b, titleWeight } = this.params;
    const lists = new QueryLists({ k1, b, avgLength: this.totalLength / this.liveCount || 1 });
    for (const term of prepared.scoring) {
      lists.add(this.postings, term.id, allowedSources, term.weight, false);
      if (term.inTitle && titleWeight > 0)
        lists.add(this.titlePostings, term.id, allowedSources, titleWeight * term.weight, true);
    }
    const found = this.topInBlocks(limit, lists, this.searchScratch());
    const { top, scores, groups } = found;
    if (top.length === 0) return [];
    const maxPossible = prepared.totalWeight * (k1 + 1);
    const best = float64At(scores, 0);
    const masks = new Map<number, number>();
    const out: LexicalCandidate[] = [];
    top.forEach((slot, i) => {
      const bm25 = float64At(scores, i);
      const group = this.docGroup.get(slot);
      let mask = masks.get(group);
      if (mask === undefined) {
        mask = this.documentMask(group, prepared.scoring, allowedSources);
        masks.set(group, mask);
      }
      const doc = this.documentFeatures(slot, prepared, groups, mask);
      out.push({ slot, features: this.features(slot, prepared, bm25, bm25 / maxPossible, bm25 / best, doc) });
    });
    return out;
  }

  /**
   * The best `limit` slots (best first, with their scores) and the evidence of the documents that
   * can matter, a block of slots at a time: each block's postings are added (`QueryLists.addUpTo`),
   * then its slots are read in slot order while their scores are still in the cache. Those scoring at
   * least the heap's floor go to the heap. A list at a time would offer the slots in the order its
   * postings first reach them instead, which gives the same slots unless several tie at the cut-off
   * (the heap always ends holding the `limit` highest scores): then the order decides which stay, so
   * a second heap takes them in that order (`QueryLists.offerInListOrder`), reading the scores still
   * in the scratch. The blocks' scores are cleared last, one fill per block.
   *
   * A document's evidence is its best chunk score plus half its second best; the features need it
   * for the candidates' documents and its largest value over every document. That largest value is
   * at least the best chunk score m (of a chunk with a document), and a document whose best chunk
   * scores b has at most 1.5·b: only documents with a chunk of 1.5·b ≥ m can hold it. So the scan
   * keeps the slots with 1.5·score ≥ the best so far (`rivals`; the best only rises, so none that
   * passes at the end was left out), and `documentEvidence` pools those documents' chunks exactly,
   * from the scores, where pooling every slot reached cost a branch and a lookup for each. The
   * largest value is also at least every evidence pooled so far, so a rival below 1.5 times that is
   * passed over: its document's best chunk is a rival too, and comes before it or is passed over.
   */
  private topInBlocks(limit: number, lists: QueryLists, scratch: SearchScratch): TopCandidates {
    const acc = scratch.scores;
    const total = this.slotTotal;
    lists.startAt(0);
    const { heap, rivals, best, blocks, helper } = this.scanAll(limit, lists, scratch);
    let top = heap;
    if (heap.tieAtCut()) {
      // The slots above the cut are those of `heap`; a second heap takes every slot in list order.
      const cut = heap.floor();
      const kept = heap.sorted();
      const above = Int32Array.from(kept.top.filter((_, i) => float64At(kept.scores, i) > cut)).sort();
      top = new TopSlots(limit);
      lists.offerInListOrder(scratch, scratch.marks, cut, above, top);
      scratch.marks.fill(0);
    }
    const sorted = top.sorted();
    const groups = this.documentEvidence(sorted.top, rivals, acc, best);
    if (helper) {
      // The worker zeroes the blocks while the answer goes on (`ScanHelper.settle` before the next search).
      const ranges = new Int32Array(blocks.length * 2);
      blocks.forEach((from, i) => {
        ranges[2 * i] = from;
        ranges[2 * i + 1] = Math.min(total, from + this.slotBlock);
      });
      helper.clear(acc, ranges);
    } else for (const from of blocks) acc.fill(0, from, Math.min(total, from + this.slotBlock));
    return { ...sorted, groups };
  }

  /**
   * Every slot's score (`scanSlots`): with a second thread (`ScanHelper`) for a search of enough
   * postings, both threads take chunks of the slots in turn (about SCAN_CHUNKS of them), and their
   * heaps and rivals are combined. The scores are the same (each slot gets the same additions in the
   * same order, on one thread or the other); the heap holds the same slots unless some tie at the
   * cut, which `tieAtCut` still tells (see `TopSlots.absorb`); the rivals are the same once filtered
   * by the best of both threads' (each kept those of its own best, never higher).
   */
  private scanAll(
    limit: number,
    lists: QueryLists,
    scratch: SearchScratch,
  ): { heap: TopSlots; rivals: Int32Array; best: number; blocks: number[]; helper: ScanHelper | null } {
    const total = this.slotTotal;
    const block = this.slotBlock;
    const groupOf = this.docGroup.values;
    const whole: ScanRange = {
      ...{ from: 0, end: total, block, span: Math.max(1, total), limit },
      ...{ claim: null, first: 0, step: 1 },
    };
    const alone = () => {
      const scan = scanSlots(lists, scratch, groupOf, whole);
      return { ...scan, rivals: scan.rivals.subarray(0, scan.rivalCount), helper: null };
    };
    const helper = total >= 2 * block ? ScanHelper.ready() : null;
    const job =
      helper && lists.entries() >= this.parallelEntries ? this.scanJob(lists, scratch, limit) : null;
    if (!helper || !job) return alone();
    helper.begin(job);
    // Alternating chunks (tests): the worker takes the odd ones, this thread the even ones.
    const mine = scanSlots(lists, scratch, groupOf, job.claim ? job : { ...job, first: 0 });
    const theirs = helper.finish();
    if (!theirs) {
      // The worker failed, after scoring chunks unknown: every slot is scored again here, from zero.
      scratch.scores.fill(0, 0, total);
      lists.startAt(0);
      return alone();
    }
    mine.heap.absorb(theirs.heap);
    const rivals = new Int32Array(mine.rivalCount + theirs.rivals.length);
    rivals.set(mine.rivals.subarray(0, mine.rivalCount));
    rivals.set(theirs.rivals, mine.rivalCount);
    return {
      heap: mine.heap,
      rivals,
      best: Math.max(mine.best, theirs.best),
      blocks: [...mine.blocks, ...theirs.blocks],
      helper: ScanHelper.ready(),
    };
  }

  /**
   * A job for both threads: the slots from the first block a list has an entry in, in chunks of
   * whole blocks; null where the arrays are not shared.
   */
  private scanJob(lists: QueryLists, scratch: SearchScratch, limit: number): ScanJob | null {
    const block = this.slotBlock;
    const total = this.slotTotal;
    const from = lists.nextBlock(block, total);
    const blocks = Math.ceil((total - from) / block);
    const { scores, lengths, norms, normed, generation } = scratch;
    const job: ScanJob = {
      kind: "scan",
      parts: lists.parts(),
      // Not the tie fallback's bits: a plain array, which the message would copy.
      scratch: { scores, lengths, norms, normed, generation },
      groupOf: this.docGroup.values,
      from,
      end: total,
      block,
      span: block * Math.max(1, Math.ceil(blocks / SCAN_CHUNKS)),
      limit,
      ...(this.chunks === "alternate"
        ? { claim: null, first: 1, step: 2 }
        : { claim: sharedInt32(1), first: 0, step: 1 }),
    };
    return ScanHelper.canShare(job) ? job : null;
  }

  /**
   * The evidence of the documents of the candidates (`top`) and of those of `rivals` that can hold
   * the largest evidence: each document's best and second-best chunk scores (from `scores`, zero for a
   * chunk the search did not reach), walking its chain of chunks once. A rival is passed over when
   * 1.5 times its score is below the largest evidence so far, or `best` (see `topInBlocks`).
   */
  private documentEvidence(
    top: readonly number[],
    rivals: Int32Array,
    scores: Float64Array,
    best: number,
  ): GroupTable {
    const table = this.groups;
    table.reset();
    const groupOf = this.docGroup.values;
    const first = this.groupFirst.values;
    const next = this.groupNext.values;
    let most = best;
    const pool = (slot: number) => {
      const group = int32At(groupOf, slot);
      if (group < 0 || table.has(group)) return;
      for (let chunk = int32At(first, group) - 1; chunk >= 0; chunk = int32At(next, chunk) - 1) {
        const score = float64At(scores, chunk);
        if (score > 0) table.add(group, score, 0);
      }
      most = Math.max(most, table.evidence(group));
    };
    for (const slot of top) pool(slot);
    for (const slot of rivals) if (1.5 * float64At(scores, slot) >= most) pool(slot);
    table.finish();
    return table;
  }

  /** The search's scratch (the scores and bits are zero between searches). */
  private searchScratch(): SearchScratch {
    this.growScratch();
    return {
      scores: this.scratch,
      marks: this.marks,
      lengths: this.docLength.values,
      norms: this.norms,
      normed: this.normed,
      generation: this.generation,
    };
  }

  /**
   * The bits of the query terms any live chunk of a document matches (in the body, or in the title
   * where that counts), found from the postings: for each run of the document's consecutive slots,
   * one binary search per term. Exactly the bits the search's postings would have set on its chunks.
   */
  private documentMask(
    group: number,
    scoring: readonly ScoringTerm[],
    allowedSources: ReadonlySet<number>,
  ): number {
    if (group < 0) return 0;
    const titles = this.params.titleWeight > 0;
    let all = 0;
    for (const term of scoring) all |= term.bit;
    const usable = (slot: number) =>
      this.docLength.get(slot) >= 0 && allowedSources.has(this.docSource.get(slot));
    const first = this.groupFirst.values;
    let mask = 0;
    let slot = group < first.length ? int32At(first, group) - 1 : -1;
    while (slot >= 0 && mask !== all) {
      let next = this.groupNext.get(slot) - 1;
      if (!usable(slot)) {
        slot = next;
        continue;
      }
      // The chain descends: extend the run while the next slot is the one just below.
      let low = slot;
      while (next >= 0 && next === low - 1 && usable(next)) {
        low = next;
        next = this.groupNext.get(next) - 1;
      }
      for (const term of scoring) {
        if ((mask & term.bit) !== 0) continue;
        if (
          this.postings.hasEntryIn(term.id, low, slot) ||
          (term.inTitle && titles && this.titlePostings.hasEntryIn(term.id, low, slot))
        )
          mask |= term.bit;
      }
      slot = next;
    }
    return mask;
  }

  /** Features of given slots for a query (used when candidates come from another retriever). */
  featuresFor(query: string, slots: number[]): Map<number, LexicalFeatures> {
    const prepared = this.prepare(query);
    const out = new Map<number, LexicalFeatures>();
    if (prepared.termIds.length === 0) return out;
    const { k1, b, titleWeight } = this.params;
    const avgLength = this.totalLength / Math.max(1, this.liveCount) || 1;
    const live = slots.filter((slot) => this.isLive(slot));
    // The search's scratch (all zero between calls), not two arrays as long as the whole index.
    this.growScratch(true);
    const scores = this.scratch;
    const masks = this.maskScratch;
    for (const slot of live) {
      const ids = this.termsOf(slot);
      const tf = new Map<number, number>();
      for (const id of ids) tf.set(id, (tf.get(id) ?? 0) + 1);
      const titleIds = new Set(this.titleTermsOf(slot));
      const bodyLength = k1 * (1 - b + (b * ids.length) / avgLength);
      let score = 0;
      let mask = 0;
      // Query terms only: here, unlike in `search`, related words add nothing.
      for (const term of prepared.scoring) {
        if (!term.inTitle) continue;
        const f = tf.get(term.id);
        const inTitle = titleIds.has(term.id);
        if (f) score += bm25Part(term.weight, f, k1, bodyLength);
        if (inTitle) score += titleWeight * term.weight;
        if (f || inTitle) mask |= term.bit;
      }
      scores[slot] = score;
      masks[slot] = mask;
    }
    const groups = this.groupEvidence(live, scores, masks);
    const best = Math.max(1e-9, ...live.map((slot) => float64At(scores, slot)));
    const maxPossible = prepared.totalWeight * (k1 + 1);
    for (const slot of live) {
      const score = float64At(scores, slot);
      const doc = this.documentFeatures(slot, prepared, groups);
      out.set(slot, this.features(slot, prepared, score, score / maxPossible, score / best, doc));
    }
    for (const slot of live) {
      scores[slot] = 0;
      masks[slot] = 0;
    }
    return out;
  }

  /** Scratch for every slot: the scores, and with `masks` the bits (only `featuresFor` keeps those). */
  private growScratch(masks = false): void {
    // The scores are zero only once a clearing handed to the search's worker has ended.
    ScanHelper.settle();
    if (this.scratch.length < this.slotTotal) {
      this.scratch = sharedFloat64(this.slotTotal * 2);
      this.marks = new Int32Array((this.slotTotal * 2 + 31) >>> 5);
      // Computed again a block at a time (every entry of `normed` is 0, no generation).
      this.norms = sharedFloat64(this.slotTotal * 2);
      this.normed = sharedInt32(Math.ceil((this.slotTotal * 2) / this.slotBlock));
    }
    if (masks && this.maskScratch.length < this.slotTotal)
      this.maskScratch = new Int32Array(this.slotTotal * 2);
  }

  /**
   * Pools the evidence of the chunks of each document: the query terms any of them (or the title)
   * matched, and the document's best and second-best chunk scores.
   */
  private groupEvidence(slots: ArrayLike<number>, scores: Float64Array, masks: Int32Array): GroupTable {
    const table = this.groups;
    table.reset();
    const groupOf = this.docGroup.values;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] as number;
      const group = int32At(groupOf, slot);
      if (group >= 0) table.add(group, float64At(scores, slot), int32At(masks, slot));
    }
    table.finish();
    return table;
  }

  /** `mask`: the query terms the slot's document matches, when not the one `groups` holds. */
  private documentFeatures(
    slot: number,
    q: PreparedQuery,
    groups: GroupTable,
    mask?: number,
  ): { docCoverage: number; docRel: number } {
    const e = groups.of(this.docGroup.get(slot));
    if (!e) return { docCoverage: 0, docRel: 0 };
    const matched = mask ?? e.mask;
    let covered = 0;
    let total = 0;
    for (let p = 0; p < Math.min(31, q.termIds.length); p++) {
      const weight = float64At(q.weights, p);
      total += weight;
      if (matched & (1 << p)) covered += weight;
    }
    return {
      docCoverage: total > 0 ? covered / total : 0,
      docRel: groups.bestEvidence > 0 ? (e.best + 0.5 * e.second) / groups.bestEvidence : 0,
    };
  }

  /**
   * How many of the query's distinct terms (stop words aside) no live chunk holds, not even as a
   * variant: words the whole knowledge base never mentions. Bounded like a query. (A misspelling
   * counts as unknown: correcting it costs more than the answer it would inform.)
   */
  /**
   * What the index makes of one word: nothing (a stop word), or a term some live chunk holds as
   * such (variants aside, unlike unknownTerms), or not. For query translation (issue #53).
   */
  wordStatus(word: string): "stop" | "known" | "unknown" {
    const [term] = analyzeTokens(tokenize(word).slice(0, 1));
    if (term === undefined) return "stop";
    return (this.df.values[this.terms.get(term)] ?? 0) > 0 ? "known" : "unknown";
  }

  unknownTerms(query: string): { terms: number; unknown: number } {
    const isLiveTerm = (term: string) => (this.df.values[this.terms.get(term)] ?? 0) > 0;
    const seen = new Set<string>();
    let unknown = 0;
    for (const token of tokenize(query).slice(0, MAX_QUERY_TOKENS)) {
      const [term] = analyzeTokens([token]);
      if (term === undefined || seen.has(term) || seen.size >= MAX_QUERY_TERMS) continue;
      seen.add(term);
      if (isLiveTerm(term)) continue;
      if (this.variants.of(term, isLiveTerm).length > 0) continue;
      unknown++;
    }
    return { terms: seen.size, unknown };
  }

  private prepare(query: string): PreparedQuery {
    const n = Math.max(1, this.liveCount);
    const idfOf = (id: number): number => {
      const df = id >= 0 ? (this.df.values[id] ?? 0) : 0;
      return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    };
    const seen = new Map<number, number>();
    const termIds: number[] = [];
    const weights: number[] = [];
    const prefixes: number[] = [];
    const words: string[] = [];
    const terms: string[] = [];
    let unknown = -2;
    const sequence: number[] = [];
    // Bounded: MAX_QUERY_TOKENS tokens, MAX_QUERY_TERMS distinct terms, MAX_TYPO_WORDS corrections.
    const tokens = tokenize(query).slice(0, MAX_QUERY_TOKENS);
    const unknownIds = new Map<string, number>();
    let corrections = 0;
    for (const token of tokens) {
      const [analyzed] = analyzeTokens([token]);
      if (analyzed === undefined) continue;
      let id = this.terms.get(analyzed);
      if (id < 0) {
        const known = unknownIds.get(analyzed);
        if (known !== undefined) id = known;
        else {
          if (this.params.typos && corrections < MAX_TYPO_WORDS && token.length <= MAX_TYPO_WORD_LENGTH) {
            if (token.length >= 4 && /^[a-z]+$/.test(token)) corrections++;
            id = this.correctTypo(token);
          }
          // Unknown terms still weigh in (an unmatched rare word lowers every score); give each its own id.
          if (id < 0) id = unknown--;
          unknownIds.set(analyzed, id);
        }
      }
      if (!seen.has(id) && seen.size >= MAX_QUERY_TERMS) continue;
      sequence.push(id);
      if (seen.has(id)) continue;
      const idf = idfOf(id);
      seen.set(id, idf);
      termIds.push(id);
      weights.push(idf);
      words.push(token);
      terms.push(analyzed);
      prefixes.push(
        id >= 0 ? this.prefixOfTerm.get(id) : (this.prefixIdByPrefix.get(prefixOf(analyzed)) ?? -1),
      );
    }
    const bigrams = new Map<number, number>();
    let bigramWeight = 0;
    for (let i = 0; i + 1 < sequence.length; i++) {
      const a = numberAt(sequence, i);
      const c = numberAt(sequence, i + 1);
      if (a === c) continue;
      const weight = (seen.get(a) ?? 0) + (seen.get(c) ?? 0);
      if (a >= 0 && c >= 0) bigrams.set(pairKey(a, c), weight);
      bigramWeight += weight;
    }
    const totalWeight = weights.reduce((s, w) => s + w, 0);
    const positionOf = new Map<number, number>();
    const prefixPositions = new Map<number, number[]>();
    termIds.forEach((id, position) => {
      if (id >= 0) positionOf.set(id, position);
      const prefix = numberAt(prefixes, position);
      if (prefix < 0) return;
      const positions = prefixPositions.get(prefix);
      if (positions) positions.push(position);
      else prefixPositions.set(prefix, [position]);
    });
    // English has its stemmer; variants stand in for the morphology it does not know (German
    // compounds and inflections, Arabic and Russian forms it leaves alone).
    const variants = readsAsEnglish(tokens, stopWords)
      ? new Map<number, number[]>()
      : this.variantsOf(terms, termIds);
    // Negative ids (unknown terms) have no postings; they only add to the totals above.
    return {
      termIds,
      weights: Float64Array.from(weights),
      totalWeight,
      bigrams,
      bigramWeight,
      expectsNumber: quantityQuestion.test(query),
      positionOf,
      prefixPositions,
      variants,
      scoring: [
        ...termIds.flatMap((id, q) =>
          id < 0 ? [] : [{ id, weight: numberAt(weights, q), bit: bitOf(q), inTitle: true }],
        ),
        ...this.expand(words, termIds, weights, idfOf),
        ...this.variantScoring(variants, weights, idfOf),
      ],
    };
  }

  /**
   * Words of the index that WordNet relates to a query word (a synonym, a derived form, a broader
   * term), each standing in for that word at a fraction of its weight: "money back" reaches "refund".
   */
  private expand(
    words: readonly string[],
    termIds: readonly number[],
    weights: readonly number[],
    idfOf: (id: number) => number,
  ): ScoringTerm[] {
    const wordnet = this.params.synonyms ? sharedWordNet() : null;
    if (!wordnet || !this.params.synonyms) return [];
    const taken = new Set(termIds);
    const out: ScoringTerm[] = [];
    for (const { word, position, factor } of expandWords(wordnet, words, this.params.synonyms)) {
      const [term] = analyzeTokens([word]);
      const id = term === undefined ? -1 : this.terms.get(term);
      if (id < 0 || taken.has(id) || (this.df.values[id] ?? 0) === 0) continue;
      taken.add(id);
      const weight = factor * Math.min(numberAt(weights, position), idfOf(id));
      out.push({ id, weight, bit: bitOf(position), inTitle: false });
    }
    return out;
  }

  /** Index terms that are variants of the query's terms, each with the positions of those terms. */
  private variantsOf(terms: readonly string[], termIds: readonly number[]): Map<number, number[]> {
    const out = new Map<number, number[]>();
    if (this.params.variants <= 0) return out;
    const isLiveTerm = (term: string) => (this.df.values[this.terms.get(term)] ?? 0) > 0;
    terms.forEach((term, position) => {
      for (const variant of this.variants.of(term, isLiveTerm)) {
        const id = this.terms.get(variant);
        if (id < 0 || termIds.includes(id) || (this.df.values[id] ?? 0) === 0) continue;
        const positions = out.get(id);
        if (positions) positions.push(position);
        else out.set(id, [position]);
      }
    });
    return out;
  }

  /** Variants stand in for their query term in BM25 (body only) at `params.variants` of its weight. */
  private variantScoring(
    variants: ReadonlyMap<number, readonly number[]>,
    weights: readonly number[],
    idfOf: (id: number) => number,
  ): ScoringTerm[] {
    const out: ScoringTerm[] = [];
    for (const [id, positions] of variants) {
      const position = positions[0] ?? 0;
      const weight = this.params.variants * Math.min(numberAt(weights, position), idfOf(id));
      out.push({ id, weight, bit: bitOf(position), inTitle: false });
    }
    return out;
  }

  /**
   * The index term a misspelt query word most likely meant: among the words one edit away (a letter
   * dropped, added, changed or two swapped) that the index knows, the most frequent one; −1 for none.
   * Candidates are stemmed without the analyser's cache, which they would only fill.
   */
  private correctTypo(token: string): number {
    // O(54·n + 25) candidates of n letters each: callers keep n ≤ MAX_TYPO_WORD_LENGTH.
    if (token.length < 4 || token.length > MAX_TYPO_WORD_LENGTH || !/^[a-z]+$/.test(token)) return -1;
    let best = -1;
    for (const candidate of editsOf(token)) {
      const term = analyzeLatinWord(candidate);
      const id = term === undefined ? -1 : this.terms.get(term);
      if (id < 0) continue;
      const df = this.df.values[id] ?? 0;
      if (df > 0 && (best < 0 || df > (this.df.values[best] ?? 0))) best = id;
    }
    return best;
  }

  private features(
    slot: number,
    q: PreparedQuery,
    bm25: number,
    bm25Norm: number,
    bm25Rel: number,
    doc: { docCoverage: number; docRel: number },
  ): LexicalFeatures {
    // The slot's record decoded once: its terms, its title's terms, where its sentences start.
    const live = this.isLive(slot);
    const length = live ? this.docLength.get(slot) : 0;
    const titles = live ? this.titleLength.get(slot) : 0;
    const record = live
      ? this.arena.read(this.recordOf(slot), 0, length + titles + this.sentenceCount.get(slot))
      : new Int32Array(0);
    const ids = record.subarray(0, length);
    const position = q.positionOf;

    const total = q.totalWeight || 1;
    // Coverage and sliding-window proximity in one pass.
    const inWindow = new Int32Array(q.termIds.length);
    const seen = new Uint8Array(q.termIds.length);
    const windowSize = this.params.window;
    let covered = 0;
    let windowWeight = 0;
    let bestWindow = 0;
    let bigramHit = 0;
    const matchedPairs = new Set<number>();
    // Per query term: whether a term of the slot shares its prefix.
    const prefixSeen = new Uint8Array(q.termIds.length);
    const variantSeen = new Uint8Array(q.termIds.length);
    for (let i = 0; i < ids.length; i++) {
      const id = int32At(ids, i);
      const samePrefix = q.prefixPositions.get(this.prefixOfTerm.values[id] ?? -1);
      if (samePrefix) for (const p of samePrefix) prefixSeen[p] = 1;
      const variantOf = q.variants.get(id);
      if (variantOf) for (const p of variantOf) variantSeen[p] = 1;
      const p = position.get(id);
      if (p !== undefined) {
        if (!seen[p]) {
          seen[p] = 1;
          covered += float64At(q.weights, p);
        }
        const count = int32At(inWindow, p);
        inWindow[p] = count + 1;
        if (count === 0) windowWeight += float64At(q.weights, p);
        if (windowWeight > bestWindow) bestWindow = windowWeight;
      }
      if (i >= windowSize) {
        const leaving = position.get(int32At(ids, i - windowSize));
        if (leaving !== undefined) {
          const left = int32At(inWindow, leaving) - 1;
          inWindow[leaving] = left;
          if (left === 0) windowWeight -= float64At(q.weights, leaving);
        }
      }
      if (i > 0 && q.bigrams.size > 0) {
        const key = pairKey(int32At(ids, i - 1), id);
        const weight = q.bigrams.get(key);
        if (weight !== undefined && !matchedPairs.has(key)) {
          matchedPairs.add(key);
          bigramHit += weight;
        }
      }
    }
    // Best sentence: coverage restricted to one sentence; also whether it holds a number the query lacks.
    const starts = record.subarray(length + titles);
    let bestSentence = 0;
    let bestSentenceHasNumber = false;
    let anyNumber = false;
    const inSentence = new Uint8Array(q.termIds.length);
    for (let si = 0; si < starts.length; si++) {
      const from = int32At(starts, si);
      const to = si + 1 < starts.length ? int32At(starts, si + 1) : ids.length;
      inSentence.fill(0);
      let weight = 0;
      let hasNumber = false;
      for (let i = from; i < to; i++) {
        const id = int32At(ids, i);
        const p = position.get(id);
        if (p !== undefined) {
          if (!inSentence[p]) {
            inSentence[p] = 1;
            weight += float64At(q.weights, p);
          }
        } else if (this.numeric.values[id] === 1) {
          hasNumber = true;
        }
      }
      if (hasNumber) anyNumber = true;
      if (weight > bestSentence) {
        bestSentence = weight;
        bestSentenceHasNumber = hasNumber;
      }
    }
    // The title and heading path are a field of the chunk (BM25F-like, issue #50): a question built on
    // an entry's title ("Opening hours" for "What are your opening hours?") is covered by it, as by one
    // more sentence and one more window, so a body that merely mentions the words does not outrank it.
    let titleHit = 0;
    let titleOnly = 0;
    for (const id of record.subarray(length, length + titles)) {
      const p = position.get(id);
      if (p !== undefined) {
        titleHit += float64At(q.weights, p);
        if (!seen[p]) titleOnly += float64At(q.weights, p);
      }
    }
    covered += titleOnly;
    bestSentence = Math.max(bestSentence, titleHit);
    bestWindow = Math.max(bestWindow, titleHit);
    let prefixHit = 0;
    for (let p = 0; p < q.termIds.length; p++)
      if (seen[p] || variantSeen[p] || prefixSeen[p]) prefixHit += float64At(q.weights, p);
    return {
      bm25,
      bm25Norm: Math.min(1, bm25Norm),
      bm25Rel: Math.min(1, bm25Rel),
      coverage: covered / total,
      proximity: bestWindow / total,
      bigram: q.bigramWeight > 0 ? bigramHit / q.bigramWeight : 0,
      title: titleHit / total,
      sentence: bestSentence / total,
      numberMatch: q.expectsNumber && bestSentenceHasNumber ? 1 : 0,
      numberMissing: q.expectsNumber && !anyNumber ? 1 : 0,
      prefixCoverage: prefixHit / total,
      docCoverage: doc.docCoverage,
      docRel: doc.docRel,
    };
  }

  /** A live slot's term ids in order (decoded from the arena; empty for a removed slot). */
  private termsOf(slot: number): Int32Array {
    if (!this.isLive(slot)) return new Int32Array(0);
    return this.arena.read(this.recordOf(slot), 0, this.docLength.get(slot));
  }

  private titleTermsOf(slot: number): Int32Array {
    if (!this.isLive(slot)) return new Int32Array(0);
    return this.arena.read(this.recordOf(slot), this.docLength.get(slot), this.titleLength.get(slot));
  }

  private recordOf(slot: number): RecordPlace {
    return { block: this.recordBlock.get(slot), offset: this.recordOffset.get(slot) };
  }

  private store(
    slot: number,
    ids: number[],
    titleIds: number[],
    starts: number[],
    source: number,
    group: number,
  ): void {
    const place = this.arena.append(ids, titleIds, starts);
    this.place(slot, place, ids.length, titleIds.length, starts.length, source, group);
  }

  /** Fills a slot's columns, its record already in the arena at `place`. */
  private place(
    slot: number,
    place: RecordPlace,
    length: number,
    titles: number,
    sentences: number,
    source: number,
    group: number,
  ): void {
    this.recordBlock.set(slot, place.block);
    this.recordOffset.set(slot, place.offset);
    this.docLength.set(slot, length);
    this.titleLength.set(slot, titles);
    this.sentenceCount.set(slot, sentences);
    this.docSource.set(slot, source);
    this.docGroup.set(slot, group);
    this.chain(slot, group);
  }

  /** Puts a slot (above every slot of its group so far) at the head of its group's chain. */
  private chain(slot: number, group: number): void {
    if (group < 0) return;
    const first = this.groupFirst.values;
    this.groupNext.set(slot, group < first.length ? int32At(first, group) : 0);
    this.groupFirst.set(group, slot + 1);
  }

  /** Every term, in id order (decoded one at a time). */
  private *allTerms(): Generator<string> {
    for (let id = 0; id < this.termCount; id++) yield this.terms.at(id) ?? "";
  }

  /** The index term id of a raw token (as `tokenize` yields it), −1 for a stop word. */
  private tokenTermId(token: string): number {
    let id = this.termIdByToken.get(token);
    if (id === undefined) {
      const [term] = analyzeTokens([token]);
      id = term === undefined ? -1 : this.termId(term);
      // A memo, not the vocabulary: cleared when full, so a million-term corpus does not keep every
      // raw token a second time (stemming a token again gives the same term).
      if (this.termIdByToken.size >= TOKEN_MEMO_ENTRIES) this.termIdByToken.clear();
      this.termIdByToken.set(token, id);
    }
    return id;
  }

  private termId(term: string): number {
    let id = this.terms.get(term);
    if (id < 0) {
      id = this.termCount++;
      this.terms.set(id, term);
      this.df.set(id, 0);
      this.numeric.set(id, /^[0-9]/.test(term) ? 1 : 0);
      const prefix = prefixOf(term);
      let prefixId = this.prefixIdByPrefix.get(prefix);
      if (prefixId === undefined) {
        prefixId = this.prefixIdByPrefix.size;
        this.prefixIdByPrefix.set(prefix, prefixId);
      }
      this.prefixOfTerm.set(id, prefixId);
      this.variants.add(term);
      this.postings.addTerm();
      this.titlePostings.addTerm();
    }
    return id;
  }
}

/** A search's best slots, best first, their scores, and the evidence of every document it touched. */
interface TopCandidates {
  top: number[];
  scores: Float64Array;
  groups: GroupTable;
}
