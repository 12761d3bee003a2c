import type { DocumentKind } from "@lore/shared";
import { int32At, itemAt } from "./checked-access.ts";

/** What the chunks of one write usually share; one object serves all of them. */
export interface ChunkMeta {
  workspaceId: string;
  dataSourceId: string;
  documentId: string;
  documentVersion: string;
  title: string;
  headingPath: readonly string[];
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
  page: number | null;
  tokenCount: number;
}

/** Everything ChunkSlots holds, as plain arrays and JSON (for a snapshot on disk). */
export interface SlotsState {
  /** Per slot: its chunk id, "" for an empty slot. */
  ids: string[];
  /** Per slot: its index into `metas`, −1 for an empty slot. */
  metaIndex: Int32Array;
  metas: ChunkMeta[];
  columns: Record<SlotsColumn, Int32Array>;
  /** Text blocks, each cut to the last byte a slot uses. */
  blocks: Uint8Array[];
  nextBlockBytes: number;
  oddTexts: [number, string][];
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

// Text lives in blocks that double from the smallest to the largest size (a small knowledge base
// holds little, a large one few blocks); a text never straddles two blocks.
const minBlockBytes = 256 * 1024;
const maxBlockBytes = 32 * 1024 * 1024;
const noPage = -2_147_483_648;
// A lone surrogate does not survive UTF-8; such (rare) texts stay JS strings.
const loneSurrogate = /\p{Cs}/u;

/**
 * Chunks by slot, packed for a million of them: UTF-8 text in large shared buffers, numbers in typed
 * columns, and the fields a write's chunks share in one `ChunkMeta` — about the text's bytes plus
 * ~60 bytes a slot, where a `StoredChunk` object per slot cost several kilobytes.
 */
export class ChunkSlots {
  private ids: (string | null)[] = [];
  private metas: (ChunkMeta | null)[] = [];
  private ordinals = new Int32Array(1024);
  private pages = new Int32Array(1024);
  private tokenCounts = new Int32Array(1024);
  private textBlock = new Int32Array(1024);
  private textStart = new Int32Array(1024);
  private textBytes = new Int32Array(1024);
  private blocks: Buffer[] = [];
  private blockUsed = 0;
  private nextBlockBytes = minBlockBytes;
  private readonly oddTexts = new Map<number, string>();

  get length(): number {
    return this.ids.length;
  }

  /** The slots as plain arrays (see SlotsState); text blocks are shared, not copied (only appended to). */
  captureState(): SlotsState {
    const slots = this.ids.length;
    const metaNumber = new Map<ChunkMeta, number>();
    const metaIndex = new Int32Array(slots).fill(-1);
    const used = new Int32Array(this.blocks.length);
    for (let slot = 0; slot < slots; slot++) {
      const meta = this.metas[slot];
      if (!meta) continue;
      let n = metaNumber.get(meta);
      if (n === undefined) {
        n = metaNumber.size;
        metaNumber.set(meta, n);
      }
      metaIndex[slot] = n;
      const bytes = int32At(this.textBytes, slot);
      const block = int32At(this.textBlock, slot);
      if (bytes >= 0) used[block] = Math.max(int32At(used, block), int32At(this.textStart, slot) + bytes);
    }
    const column = (values: Int32Array) => values.slice(0, slots);
    return {
      ids: this.ids.map((id) => id ?? ""),
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
      blocks: this.blocks.map((b, i) => b.subarray(0, int32At(used, i))),
      nextBlockBytes: this.nextBlockBytes,
      oddTexts: [...this.oddTexts],
    };
  }

  /** Slots holding a captured state, exactly as they were. */
  static fromState(state: SlotsState): ChunkSlots {
    const slots = new ChunkSlots();
    const count = state.ids.length;
    for (const name of slotsColumns) {
      if (state.columns[name].length !== count) throw new RangeError("slot columns do not match");
    }
    if (state.metaIndex.length !== count) throw new RangeError("slot metas do not match");
    slots.ids = state.ids.map((id) => (id === "" ? null : id));
    slots.metas = Array.from(state.metaIndex, (n) => (n < 0 ? null : itemAt(state.metas, n)));
    // Columns keep room to grow (ensure() doubles from their length).
    slots.ensureCapacity(Math.max(1024, count));
    slots.ordinals.set(state.columns.ordinals);
    slots.pages.set(state.columns.pages);
    slots.tokenCounts.set(state.columns.tokenCounts);
    slots.textBlock.set(state.columns.textBlock);
    slots.textStart.set(state.columns.textStart);
    slots.textBytes.set(state.columns.textBytes);
    slots.blocks = state.blocks.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    slots.blockUsed = slots.blocks.at(-1)?.length ?? 0;
    slots.nextBlockBytes = state.nextBlockBytes;
    for (const [slot, text] of state.oddTexts) slots.oddTexts.set(slot, text);
    return slots;
  }

  set(slot: number, chunk: SlotChunk, meta: ChunkMeta): void {
    this.place(slot, chunk.id, meta);
    this.ordinals[slot] = chunk.ordinal;
    this.pages[slot] = chunk.page ?? noPage;
    this.tokenCounts[slot] = chunk.tokenCount;
    this.writeText(slot, chunk.text);
  }

  clear(slot: number): void {
    if (slot >= this.ids.length) return;
    this.ids[slot] = null;
    this.metas[slot] = null;
    this.oddTexts.delete(slot);
  }

  id(slot: number): string | null {
    return this.ids[slot] ?? null;
  }

  meta(slot: number): ChunkMeta | null {
    return this.metas[slot] ?? null;
  }

  /** The slot's chunk fields, text decoded; null for an empty slot. */
  chunk(slot: number): SlotChunk | null {
    const id = this.ids[slot];
    if (!id) return null;
    const page = int32At(this.pages, slot);
    return {
      id,
      ordinal: int32At(this.ordinals, slot),
      text: this.readText(slot),
      page: page === noPage ? null : page,
      tokenCount: int32At(this.tokenCounts, slot),
    };
  }

  /** Renumbers slots by `remap` (old → new, −1 to drop), repacking the text bytes. */
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
      blocks: this.blocks,
      oddTexts: new Map(this.oddTexts),
    };
    this.ids = [];
    this.metas = [];
    for (const name of ["ordinals", "pages", "tokenCounts", "textBlock", "textStart", "textBytes"] as const)
      this[name] = new Int32Array(1024);
    this.blocks = [];
    this.blockUsed = 0;
    this.oddTexts.clear();
    // The first new block holds every live text when it can, so compaction leaves no half-empty chain.
    let liveBytes = 0;
    for (let slot = 0; slot < remap.length; slot++) {
      if (int32At(remap, slot) >= 0) liveBytes += Math.max(0, int32At(old.textBytes, slot));
    }
    this.nextBlockBytes = Math.min(maxBlockBytes, Math.max(minBlockBytes, liveBytes));
    for (let slot = 0; slot < remap.length; slot++) {
      const next = int32At(remap, slot);
      const id = old.ids[slot];
      const meta = old.metas[slot];
      if (next < 0 || !id || !meta) continue;
      this.place(next, id, meta);
      this.ordinals[next] = int32At(old.ordinals, slot);
      this.pages[next] = int32At(old.pages, slot);
      this.tokenCounts[next] = int32At(old.tokenCounts, slot);
      const bytes = int32At(old.textBytes, slot);
      if (bytes < 0) {
        this.oddTexts.set(next, old.oddTexts.get(slot) ?? "");
        this.textBytes[next] = -1;
        continue;
      }
      const start = int32At(old.textStart, slot);
      const source = old.blocks[int32At(old.textBlock, slot)]?.subarray(start, start + bytes);
      const { block, offset } = this.reserve(next, bytes);
      if (source) block.set(source, offset);
    }
  }

  private place(slot: number, id: string, meta: ChunkMeta): void {
    this.ensure(slot + 1);
    while (this.ids.length < slot) {
      this.ids.push(null);
      this.metas.push(null);
    }
    this.ids[slot] = id;
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
  }

  private writeText(slot: number, text: string): void {
    if (loneSurrogate.test(text)) {
      this.oddTexts.set(slot, text);
      this.textBytes[slot] = -1;
      return;
    }
    this.oddTexts.delete(slot);
    const bytes = Buffer.byteLength(text, "utf8");
    const { block, offset } = this.reserve(slot, bytes);
    block.write(text, offset, "utf8");
  }

  /** Room for a slot's text bytes at the end of the last block (or in a new one). */
  private reserve(slot: number, bytes: number): { block: Buffer; offset: number } {
    let block = this.blocks.at(-1);
    if (!block || this.blockUsed + bytes > block.length) {
      block = Buffer.allocUnsafeSlow(Math.max(this.nextBlockBytes, bytes));
      this.nextBlockBytes = Math.min(maxBlockBytes, this.nextBlockBytes * 2);
      this.blocks.push(block);
      this.blockUsed = 0;
    }
    const offset = this.blockUsed;
    this.textBlock[slot] = this.blocks.length - 1;
    this.textStart[slot] = offset;
    this.textBytes[slot] = bytes;
    this.blockUsed += bytes;
    return { block, offset };
  }

  private readText(slot: number): string {
    const bytes = int32At(this.textBytes, slot);
    if (bytes < 0) return this.oddTexts.get(slot) ?? "";
    const start = int32At(this.textStart, slot);
    return this.blocks[int32At(this.textBlock, slot)]?.toString("utf8", start, start + bytes) ?? "";
  }
}
