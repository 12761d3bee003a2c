import type { DocumentKind } from "@lore/shared";
import { int32At, itemAt } from "./checked-access.ts";
import { StringTable } from "./string-table.ts";
import { DamagedTextError, recordChecksum, TextFile, type TextFileOptions } from "./text-file.ts";

/** What the chunks of one write share; one object serves all of them. */
export interface ChunkMeta {
  workspaceId: string;
  dataSourceId: string;
  documentId: string;
  documentVersion: string;
  title: string;
  sourceUrl: string | null;
  kind: DocumentKind;
  writeId: string;
  /** The data source's small integer in the lexical index. */
  source: number;
}

/** The chunk fields `ChunkSlots` keeps per slot besides the shared `ChunkMeta`. */
export interface SlotChunk {
  id: string;
  ordinal: number;
  text: string;
  headingPath: string[];
  page: number | null;
  tokenCount: number;
}

/** A text block of a captured state: its length now, its bytes read when a snapshot writes it. */
export interface TextBlock {
  byteLength: number;
  read(): Uint8Array;
}

/** Everything ChunkSlots holds, as plain arrays and JSON (for a snapshot on disk). */
export interface SlotsState {
  /** Per slot: its chunk id ("" for an empty slot), NUL-separated UTF-8 (as many as `metaIndex` is long). */
  ids: Uint8Array;
  /** Per slot: its index into `metas`, −1 for an empty slot. */
  metaIndex: Int32Array;
  metas: ChunkMeta[];
  columns: Record<SlotsColumn, Int32Array>;
  /**
   * Text blocks, each cut to the last byte a slot uses. Per slot a record: its heading path as JSON,
   * a line break, its text as UTF-8.
   */
  blocks: TextBlock[];
  nextBlockBytes: number;
  oddTexts: [number, string][];
  /** Called once the captured blocks have been read (a capture holds the text file open till then). */
  release(): void;
}

export const slotsColumns = [
  "ordinals",
  "pages",
  "tokenCounts",
  "textBlock",
  "textStart",
  "textBytes",
] as const;
export type SlotsColumn = (typeof slotsColumns)[number];

const noPage = -2_147_483_648;
// A lone surrogate does not survive UTF-8; such (rare) texts stay JS strings (their record holds "").
const loneSurrogate = /\p{Cs}/u;

/** A slot's record: heading path as JSON (which escapes line breaks and lone surrogates), "\n", text. */
function encodeRecord(headingPath: readonly string[], text: string): Buffer {
  return Buffer.from(`${JSON.stringify(headingPath)}\n${text}`, "utf8");
}

function decodeRecord(record: string): { headingPath: string[]; text: string } {
  const cut = record.indexOf("\n");
  let headingPath: string[] = [];
  try {
    const parsed: unknown = JSON.parse(record.slice(0, cut));
    if (Array.isArray(parsed)) headingPath = parsed.map(String);
  } catch {
    // A damaged record reads as no heading; the text still reads.
  }
  return { headingPath, text: record.slice(cut + 1) };
}

/**
 * Chunks by slot, packed for millions of them: numbers in typed columns, the fields a write's chunks
 * share in one `ChunkMeta`, and each chunk's text and heading path in a `TextFile` off the heap, read
 * back (through a bounded cache) only for the chunks a caller returns — about 60 bytes of RAM a slot
 * besides its id, where the texts in memory cost their bytes again.
 */
export class ChunkSlots {
  /** Chunk id by slot, and slot by chunk id (as UTF-8 bytes: no string per chunk on the heap). */
  private ids = new StringTable();
  private metas: (ChunkMeta | null)[] = [];
  private ordinals = new Int32Array(1024);
  private pages = new Int32Array(1024);
  private tokenCounts = new Int32Array(1024);
  private textBlock = new Int32Array(1024);
  private textStart = new Int32Array(1024);
  private textBytes = new Int32Array(1024);
  /** Each record's CRC-32 (not in snapshots: computed again from the blocks a snapshot loads). */
  private textChecksum = new Int32Array(1024);
  private texts: TextFile;
  private readonly oddTexts = new Map<number, string>();
  /** Slots whose record failed its checksum since `takeDamaged` last ran. */
  private damaged = new Set<number>();

  constructor(private readonly textOptions: TextFileOptions = {}) {
    this.texts = new TextFile(textOptions);
  }

  get length(): number {
    return this.metas.length;
  }

  /** Text reads that missed the cache so far. */
  get textMisses(): number {
    return this.texts.misses;
  }

  /**
   * The slots as plain arrays (see SlotsState). Text blocks are read later, from a file this capture
   * holds open (records are only ever appended; compaction writes a new file), until `release()`.
   */
  captureState(): SlotsState {
    const slots = this.metas.length;
    const metaNumber = new Map<ChunkMeta, number>();
    const metaIndex = new Int32Array(slots).fill(-1);
    for (let slot = 0; slot < slots; slot++) {
      const meta = this.metas[slot];
      if (!meta) continue;
      let n = metaNumber.get(meta);
      if (n === undefined) {
        n = metaNumber.size;
        metaNumber.set(meta, n);
      }
      metaIndex[slot] = n;
    }
    const column = (values: Int32Array) => values.slice(0, slots);
    const file = this.texts;
    const release = file.retain();
    return {
      ids: this.ids.encoded(slots),
      metaIndex,
      metas: [...metaNumber.keys()],
      columns: {
        ordinals: column(this.ordinals),
        pages: column(this.pages),
        tokenCounts: column(this.tokenCounts),
        textBlock: column(this.textBlock),
        textStart: column(this.textStart),
        textBytes: column(this.textBytes),
      },
      blocks: Array.from({ length: file.blockCount }, (_, block) => {
        const byteLength = file.blockLength(block);
        return { byteLength, read: () => file.readBlock(block).subarray(0, byteLength) };
      }),
      nextBlockBytes: 0,
      oddTexts: [...this.oddTexts],
      release,
    };
  }

  /**
   * Slots holding a captured state, exactly as they were; its text blocks are copied into this
   * instance's file one by one as `blocks` yields them (a snapshot inflates them one at a time).
   */
  static async fromState(
    state: Omit<SlotsState, "blocks" | "release">,
    blocks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    textOptions: TextFileOptions = {},
  ): Promise<ChunkSlots> {
    const slots = new ChunkSlots(textOptions);
    const count = state.metaIndex.length;
    for (const name of slotsColumns) {
      if (state.columns[name].length !== count) throw new RangeError("slot columns do not match");
    }
    slots.ids = StringTable.decoded(state.ids, count);
    slots.metas = Array.from(state.metaIndex, (n) => (n < 0 ? null : itemAt(state.metas, n)));
    // Columns keep room to grow (ensure() doubles from their length).
    slots.ensureCapacity(Math.max(1024, count));
    slots.ordinals.set(state.columns.ordinals);
    slots.pages.set(state.columns.pages);
    slots.tokenCounts.set(state.columns.tokenCounts);
    slots.textBlock.set(state.columns.textBlock);
    slots.textStart.set(state.columns.textStart);
    slots.textBytes.set(state.columns.textBytes);
    try {
      await slots.texts.appendBlocks(slots.checksummed(blocks, count));
    } catch (error) {
      slots.close();
      throw error;
    }
    for (const [slot, text] of state.oddTexts) slots.oddTexts.set(slot, text);
    return slots;
  }

  /** Passes a snapshot's blocks on, taking each record's checksum from the bytes as loaded. */
  private async *checksummed(
    blocks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    count: number,
  ): AsyncIterable<Uint8Array> {
    const byBlock = new Map<number, number[]>();
    for (let slot = 0; slot < count; slot++) {
      const block = int32At(this.textBlock, slot);
      const list = byBlock.get(block);
      if (list) list.push(slot);
      else byBlock.set(block, [slot]);
    }
    let block = 0;
    for await (const bytes of blocks) {
      for (const slot of byBlock.get(block) ?? []) {
        const start = int32At(this.textStart, slot);
        this.textChecksum[slot] = recordChecksum(
          bytes.subarray(start, start + int32At(this.textBytes, slot)),
        );
      }
      block++;
      yield bytes;
    }
  }

  /** The slots whose text failed its checksum since the last call (their chunks read as null). */
  takeDamaged(): number[] {
    const slots = [...this.damaged];
    this.damaged.clear();
    return slots;
  }

  /** Writes a slot's text again (as re-read from the table after its record was damaged). */
  rewriteText(slot: number, headingPath: readonly string[], text: string): void {
    if (!this.ids.at(slot)) return;
    const odd = loneSurrogate.test(text);
    if (odd) this.oddTexts.set(slot, text);
    this.writeRecord(slot, encodeRecord(headingPath, odd ? "" : text));
  }

  set(
    slot: number,
    chunk: Omit<SlotChunk, "headingPath"> & { headingPath: readonly string[] },
    meta: ChunkMeta,
  ): void {
    this.place(slot, chunk.id, meta);
    this.ordinals[slot] = chunk.ordinal;
    this.pages[slot] = chunk.page ?? noPage;
    this.tokenCounts[slot] = chunk.tokenCount;
    const odd = loneSurrogate.test(chunk.text);
    if (odd) this.oddTexts.set(slot, chunk.text);
    else this.oddTexts.delete(slot);
    this.writeRecord(slot, encodeRecord(chunk.headingPath, odd ? "" : chunk.text));
  }

  clear(slot: number): void {
    if (slot >= this.metas.length) return;
    this.ids.delete(slot);
    this.metas[slot] = null;
    this.oddTexts.delete(slot);
  }

  id(slot: number): string | null {
    return this.ids.at(slot);
  }

  /** The slot holding this chunk id, −1 when none does. */
  slotOf(id: string): number {
    return this.ids.get(id);
  }

  meta(slot: number): ChunkMeta | null {
    return this.metas[slot] ?? null;
  }

  /**
   * The slot's chunk fields, text and heading path read back; null for an empty slot, and for one
   * whose text record is damaged (noted for `takeDamaged`).
   */
  chunk(slot: number): SlotChunk | null {
    const id = this.ids.at(slot);
    if (!id) return null;
    const page = int32At(this.pages, slot);
    let record: { headingPath: string[]; text: string };
    try {
      record = this.readRecord(slot);
    } catch (error) {
      if (!(error instanceof DamagedTextError)) throw error;
      this.damaged.add(slot);
      return null;
    }
    const { headingPath, text } = record;
    return {
      id,
      ordinal: int32At(this.ordinals, slot),
      text: this.oddTexts.get(slot) ?? text,
      headingPath,
      page: page === noPage ? null : page,
      tokenCount: int32At(this.tokenCounts, slot),
    };
  }

  /** Renumbers slots by `remap` (old → new, −1 to drop), copying the live records to a new file. */
  compact(remap: Int32Array): void {
    const old = {
      ids: this.ids,
      metas: this.metas,
      ordinals: this.ordinals,
      pages: this.pages,
      tokenCounts: this.tokenCounts,
      textBlock: this.textBlock,
      textStart: this.textStart,
      textBytes: this.textBytes,
      textChecksum: this.textChecksum,
      texts: this.texts,
      oddTexts: new Map(this.oddTexts),
    };
    this.ids = new StringTable(old.ids.size);
    this.metas = [];
    for (const name of [...slotsColumns, "textChecksum"] as const) this[name] = new Int32Array(1024);
    this.texts = new TextFile(this.textOptions);
    this.oddTexts.clear();
    for (let slot = 0; slot < remap.length; slot++) {
      const next = int32At(remap, slot);
      const id = old.ids.at(slot);
      const meta = old.metas[slot];
      if (next < 0 || !id || !meta) continue;
      this.place(next, id, meta);
      this.ordinals[next] = int32At(old.ordinals, slot);
      this.pages[next] = int32At(old.pages, slot);
      this.tokenCounts[next] = int32At(old.tokenCounts, slot);
      const odd = old.oddTexts.get(slot);
      if (odd !== undefined) this.oddTexts.set(next, odd);
      const record = old.texts.readBytes(
        int32At(old.textBlock, slot),
        int32At(old.textStart, slot),
        int32At(old.textBytes, slot),
      );
      this.writeRecord(next, record);
      // A record damaged in the old file stays known as damaged in the new one.
      this.textChecksum[next] = int32At(old.textChecksum, slot);
    }
    // A snapshot being written may still hold the old file; it closes when that one is done.
    old.texts.release();
  }

  /** Closes the text file (once any snapshot being written is done with it). */
  close(): void {
    this.texts.release();
  }

  private place(slot: number, id: string, meta: ChunkMeta): void {
    this.ensure(slot + 1);
    while (this.metas.length < slot) this.metas.push(null);
    this.ids.set(slot, id);
    this.metas[slot] = meta;
  }

  private ensureCapacity(capacity: number): void {
    this.ensure(capacity, capacity);
  }

  private ensure(size: number, exact?: number): void {
    if (size <= this.ordinals.length) return;
    const capacity = exact ?? Math.max(size, this.ordinals.length * 2);
    const grow = (column: Int32Array) => {
      const grown = new Int32Array(capacity);
      grown.set(column);
      return grown;
    };
    this.ordinals = grow(this.ordinals);
    this.pages = grow(this.pages);
    this.tokenCounts = grow(this.tokenCounts);
    this.textBlock = grow(this.textBlock);
    this.textStart = grow(this.textStart);
    this.textBytes = grow(this.textBytes);
    this.textChecksum = grow(this.textChecksum);
  }

  private writeRecord(slot: number, record: Uint8Array): void {
    const { block, start } = this.texts.append(record);
    this.textBlock[slot] = block;
    this.textStart[slot] = start;
    this.textBytes[slot] = record.byteLength;
    this.textChecksum[slot] = recordChecksum(record);
  }

  private readRecord(slot: number): { headingPath: string[]; text: string } {
    return decodeRecord(
      this.texts.readText(
        int32At(this.textBlock, slot),
        int32At(this.textStart, slot),
        int32At(this.textBytes, slot),
        int32At(this.textChecksum, slot),
      ),
    );
  }
}
