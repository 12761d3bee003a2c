import { int32At } from "./checked-access.ts";
import type { ChunkMeta } from "./chunk-slots.ts";
import { ChunkSlots, slotsColumns } from "./chunk-slots.ts";
import type { CapturedPostings, LexicalParams, PackedPostings } from "./lexical-index.ts";
import { LexicalIndex, slotColumns } from "./lexical-index.ts";
import { MemoryIndex, type MemoryState } from "./memory-index.ts";
import { termOfEntry } from "./posting-lists.ts";
import {
  type ComputedSection,
  decodeStrings,
  encodeStrings,
  inflatedSection,
  type LazySection,
  openSnapshot,
  type SectionBytes,
  type SectionSource,
  SnapshotError,
  sectionOf,
  writeSnapshot,
} from "./snapshot-file.ts";
import type { TextFileOptions } from "./text-file.ts";

/**
 * What a snapshot of the in-memory index is valid for: the chunks table at one version, ranked with
 * these lexical parameters, by this layout of the index. Anything else and it is rebuilt from the table.
 */
export interface SnapshotKey {
  /** Bumped whenever what the index keeps per term or slot changes shape or meaning. */
  layout: number;
  table: string;
  tableVersion: number;
  params: LexicalParams;
}

// 3: postings' slot numbers stored as gaps (with the file's sections deflated, format 2).
// 4: heading paths moved from the shared metas into each slot's text record (issue #32).
// 5: the forward index's records as LEB128 bytes instead of 32-bit integers; each posting list's
// runs of one source saved, not recomputed at its first search (issue #32).
// 6: Greek words stemmed and Greek stop words dropped (issue #53): older snapshots hold Greek terms whole.
export const SNAPSHOT_LAYOUT = 6;

/** The small, JSON part of a snapshot; the arrays go in binary sections. */
interface SnapshotMeta {
  terms: number;
  prefixes: number;
  blocks: number;
  textBlocks: number;
  slots: number;
  counts: MemoryState["lexical"]["counts"];
  metaCount: number;
  nextBlockBytes: number;
  oddTexts: [number, string][];
  sourceNumber: [string, number][];
  liveBySource: [number, number][];
  nextSourceNumber: number;
  documentNumber: [string, number][];
  nextDocumentNumber: number;
}

// The string fields of ChunkMeta, one section each: a write of many documents has a meta each, so a
// million of them must not go through JSON.
const metaStrings = [
  "workspaceId",
  "dataSourceId",
  "documentId",
  "documentVersion",
  "title",
  "writeId",
] as const;

function metaSections(metas: readonly ChunkMeta[]): [string, SectionBytes][] {
  return [
    ...metaStrings.map((field): [string, SectionBytes] => [
      `meta.${field}`,
      encodeStrings(metas.map((m) => m[field])),
    ]),
    // A missing URL is marked by the flag column.
    ["meta.sourceUrl", encodeStrings(metas.map((m) => m.sourceUrl ?? ""))],
    ["meta.hasSourceUrl", Uint8Array.from(metas, (m) => (m.sourceUrl === null ? 0 : 1))],
    ["meta.kind", encodeStrings(metas.map((m) => m.kind))],
    ["meta.source", Int32Array.from(metas, (m) => m.source)],
  ];
}

function decodeMetas(sections: ReadonlyMap<string, SectionBytes>, count: number): ChunkMeta[] {
  // Equal strings (a workspace's id in every meta) are kept once.
  const interned = new Map<string, string>();
  const intern = (value: string) => {
    const known = interned.get(value);
    if (known !== undefined) return known;
    interned.set(value, value);
    return value;
  };
  const strings = (name: string) =>
    decodeStrings(sectionOf(sections, `meta.${name}`, Uint8Array), count).map(intern);
  const fields = Object.fromEntries(metaStrings.map((field) => [field, strings(field)])) as Record<
    (typeof metaStrings)[number],
    string[]
  >;
  const sourceUrls = strings("sourceUrl");
  const kinds = strings("kind");
  const hasSourceUrl = sectionOf(sections, "meta.hasSourceUrl", Uint8Array);
  const sources = sectionOf(sections, "meta.source", Int32Array);
  const at = (values: readonly string[], i: number) => values[i] ?? "";
  return Array.from({ length: count }, (_, i) => {
    return {
      workspaceId: at(fields.workspaceId, i),
      dataSourceId: at(fields.dataSourceId, i),
      documentId: at(fields.documentId, i),
      documentVersion: at(fields.documentVersion, i),
      title: at(fields.title, i),
      writeId: at(fields.writeId, i),
      sourceUrl: hasSourceUrl[i] === 1 ? at(sourceUrls, i) : null,
      kind: at(kinds, i) as ChunkMeta["kind"],
      source: sources[i] ?? -1,
    };
  });
}

// A term's slots ascend, so each is stored as its gap from the previous one (the first as is):
// small numbers that deflate to about half the size of the slots themselves. Read from the lists
// and computed a piece at a time as the writer gets to it, so a save never holds a copy of every
// posting.
function slotGaps(postings: CapturedPostings): ComputedSection {
  const { offsets } = postings;
  return {
    type: "int32",
    byteLength: (offsets.at(-1) ?? 0) * 4,
    piece(from, to) {
      const first = from / 4;
      const count = (to - from) / 4;
      // With the entry before the piece, for the gap of its first one; the gaps are written over
      // the slots, each one place down, once the slot it overwrites has been used.
      const lead = first > 0 ? 1 : 0;
      const slots = new Int32Array(count + lead);
      postings.read(first - lead, first + count, slots, null);
      let term = termOfEntry(offsets, first);
      let next = int32At(offsets, term + 1);
      let previous = lead > 0 ? int32At(slots, 0) : 0;
      for (let i = 0; i < count; i++) {
        while (first + i >= next) next = int32At(offsets, ++term + 1);
        const slot = int32At(slots, i + lead);
        slots[i] = first + i === int32At(offsets, term) ? slot : slot - previous;
        previous = slot;
      }
      return new Uint8Array(slots.buffer, 0, count * 4);
    },
  };
}

/** The term frequencies, read from the lists a piece at a time. */
function termFrequencies(postings: CapturedPostings): ComputedSection {
  return {
    type: "uint16",
    byteLength: (postings.offsets.at(-1) ?? 0) * 2,
    piece(from, to) {
      const tfs = new Uint16Array((to - from) / 2);
      postings.read(from / 2, to / 2, null, tfs);
      return new Uint8Array(tfs.buffer);
    },
  };
}

/** Slot numbers back from their gaps, in place. */
function slotsFromGaps(offsets: Int32Array, gaps: Int32Array): Int32Array {
  const total = offsets.at(-1) ?? 0;
  if (gaps.length !== total) throw new SnapshotError("postings do not match their offsets");
  for (let t = 0; t + 1 < offsets.length; t++) {
    let previous = 0;
    for (let i = offsets[t] ?? 0, end = offsets[t + 1] ?? 0; i < end; i++) {
      previous += gaps[i] ?? 0;
      gaps[i] = previous;
    }
  }
  return gaps;
}

function postingsSections(prefix: string, postings: CapturedPostings): [string, SectionSource][] {
  return [
    [`${prefix}.offsets`, postings.offsets],
    [`${prefix}.slotGaps`, slotGaps(postings)],
    [`${prefix}.tfs`, termFrequencies(postings)],
    [`${prefix}.runTerms`, postings.runs.terms],
    [`${prefix}.runStarts`, postings.runs.starts],
    [`${prefix}.runPairs`, postings.runs.pairs],
  ];
}

/** Captures the index now and writes it (atomically) to `path`; returns the bytes written. */
export async function saveMemorySnapshot(
  path: string,
  key: SnapshotKey,
  memory: MemoryIndex,
  options: { pieceBytes?: number } = {},
): Promise<number> {
  const state = memory.captureState();
  try {
    return await writeCaptured(path, key, state, options);
  } finally {
    state.lexical.release();
    state.slots.release();
  }
}

function writeCaptured(
  path: string,
  key: SnapshotKey,
  state: MemoryState,
  options: { pieceBytes?: number },
): Promise<number> {
  const { lexical, slots } = state;
  const sections = new Map<string, SectionSource>([
    ["terms", lexical.terms],
    ["prefixes", encodeStrings(lexical.prefixes)],
    ["df", lexical.df],
    ["numeric", lexical.numeric],
    ["prefixOfTerm", lexical.prefixOfTerm],
    ...postingsSections("postings", lexical.postings),
    ...postingsSections("titlePostings", lexical.titlePostings),
    ...slotColumns.map((name): [string, SectionBytes] => [`lexical.${name}`, lexical.columns[name]]),
    ...lexical.blocks.map((block, i): [string, SectionBytes] => [`arena#${i}`, block]),
    ["ids", slots.ids],
    ["metaIndex", slots.metaIndex],
    ...slotsColumns.map((name): [string, SectionBytes] => [`slots.${name}`, slots.columns[name]]),
    ...metaSections(slots.metas),
    // Last: the bulk that nothing is built from, read from the text file as the write gets to it.
    ...slots.blocks.map((block, i): [string, LazySection] => [`text#${i}`, block]),
  ]);
  const meta: SnapshotMeta = {
    terms: lexical.df.length,
    prefixes: lexical.prefixes.length,
    blocks: lexical.blocks.length,
    textBlocks: slots.blocks.length,
    slots: slots.metaIndex.length,
    counts: lexical.counts,
    metaCount: slots.metas.length,
    nextBlockBytes: slots.nextBlockBytes,
    oddTexts: slots.oddTexts,
    sourceNumber: state.sourceNumber,
    liveBySource: state.liveBySource,
    nextSourceNumber: state.nextSourceNumber,
    documentNumber: state.documentNumber,
    nextDocumentNumber: state.nextDocumentNumber,
  };
  return writeSnapshot(path, key, meta, sections, options);
}

/**
 * The index saved at `path` for exactly `key`; null when there is no such snapshot (none, or one for
 * another table version, parameters or layout). A damaged file throws. The lexical index is built
 * as soon as its sections have inflated, while the chunk texts inflate and go to the text file on
 * libuv's threads.
 * `anyTableVersion`: a snapshot of an earlier version of the table is taken too (shared mode, where
 * the caller then reconciles it with the table).
 */
export async function loadMemorySnapshot(
  path: string,
  key: SnapshotKey,
  options: { anyTableVersion?: boolean; texts?: TextFileOptions } = {},
): Promise<MemoryIndex | null> {
  const sameButVersion = (stored: unknown) =>
    typeof stored === "object" &&
    stored !== null &&
    JSON.stringify({ ...stored, tableVersion: key.tableVersion }) === JSON.stringify(key);
  const opened = openSnapshot(path, key, options.anyTableVersion ? sameButVersion : undefined, (name) =>
    name.startsWith("text#"),
  );
  if (!opened) return null;
  const meta = opened.meta as SnapshotMeta;
  const { sections } = opened;
  const int32 = (name: string) => inflatedSection(sections, name, Int32Array);
  const uint8 = (name: string) => inflatedSection(sections, name, Uint8Array);
  const postings = async (prefix: string): Promise<PackedPostings> => {
    const offsets = await int32(`${prefix}.offsets`);
    return {
      offsets,
      docs: slotsFromGaps(offsets, await int32(`${prefix}.slotGaps`)),
      tfs: await inflatedSection(sections, `${prefix}.tfs`, Uint16Array),
      runs: {
        terms: await int32(`${prefix}.runTerms`),
        starts: await int32(`${prefix}.runStarts`),
        pairs: await int32(`${prefix}.runPairs`),
      },
    };
  };
  const columns = async <C extends string>(names: readonly C[], prefix: string) =>
    Object.fromEntries(
      await Promise.all(names.map(async (name) => [name, await int32(`${prefix}.${name}`)] as const)),
    ) as Record<C, Int32Array>;
  // The slots load (their texts written to the text file on libuv's threads) while this thread
  // builds the lexical index.
  const slotsLoading = (async () => {
    const metaBytes = new Map<string, SectionBytes>();
    for (const [name, bytes] of sections) if (name.startsWith("meta.")) metaBytes.set(name, await bytes);
    // Text blocks inflate one at a time (the next while this one is written to the text file), so
    // they never all sit in memory.
    const later = opened.later;
    async function* textBlocks(): AsyncGenerator<Uint8Array> {
      const inflate = (i: number) => {
        const start = later.get(`text#${i}`);
        if (!start) return Promise.reject(new SnapshotError(`snapshot section text#${i} is missing`));
        const inflating = start();
        inflating.catch(() => undefined); // surfaced when awaited below
        return inflating;
      };
      let next = meta.textBlocks > 0 ? inflate(0) : null;
      for (let i = 0; i < meta.textBlocks; i++) {
        const bytes = await next;
        next = i + 1 < meta.textBlocks ? inflate(i + 1) : null;
        if (!(bytes instanceof Uint8Array)) throw new SnapshotError(`snapshot section text#${i} is missing`);
        yield bytes;
      }
    }
    return ChunkSlots.fromState(
      {
        ids: await uint8("ids"),
        metaIndex: await int32("metaIndex"),
        metas: decodeMetas(metaBytes, meta.metaCount),
        columns: await columns(slotsColumns, "slots"),
        nextBlockBytes: meta.nextBlockBytes,
        oddTexts: meta.oddTexts,
      },
      textBlocks(),
      options.texts,
    );
  })();
  slotsLoading.catch(() => undefined); // surfaced when awaited below
  let lexical: LexicalIndex;
  try {
    lexical = LexicalIndex.fromState(key.params, {
      terms: await uint8("terms"),
      prefixes: decodeStrings(await uint8("prefixes"), meta.prefixes),
      df: await int32("df"),
      numeric: await uint8("numeric"),
      prefixOfTerm: await int32("prefixOfTerm"),
      postings: await postings("postings"),
      titlePostings: await postings("titlePostings"),
      columns: await columns(slotColumns, "lexical"),
      blocks: await Promise.all(Array.from({ length: meta.blocks }, (_, i) => uint8(`arena#${i}`))),
      counts: meta.counts,
    });
  } catch (error) {
    (await slotsLoading.catch(() => null))?.close();
    opened.close();
    throw error;
  }
  // Every text block was read by then, unless one failed (the file is closed either way).
  const slots = await slotsLoading.finally(() => opened.close());
  return MemoryIndex.fromParts(key.params, lexical, slots, {
    sourceNumber: meta.sourceNumber,
    liveBySource: meta.liveBySource,
    nextSourceNumber: meta.nextSourceNumber,
    documentNumber: meta.documentNumber,
    nextDocumentNumber: meta.nextDocumentNumber,
  });
}
