import { type ChunkMeta, ChunkSlots, type SlotsState } from "./chunk-slots.ts";
import { NewestWrites, type StoredChunk, type StoredRow, type TableWrites } from "./chunk-store.ts";
import { type CapturedLexicalState, LexicalIndex, type LexicalParams } from "./lexical-index.ts";
import type { TextFileOptions } from "./text-file.ts";

/** Everything a MemoryIndex holds (for a snapshot on disk); the document → slots map is rebuilt from the slots. */
export interface MemoryState {
  lexical: CapturedLexicalState;
  slots: SlotsState;
  sourceNumber: [string, number][];
  liveBySource: [number, number][];
  nextSourceNumber: number;
  documentNumber: [string, number][];
  nextDocumentNumber: number;
}

/**
 * The searchable copy of the live chunks: the lexical index and, per slot, the chunk behind it
 * (packed: numbers in columns, shared fields once per write, text and heading path in a file off the
 * heap, read back through a bounded cache for the chunks returned; the slots also find a chunk id's
 * slot), plus the maps from document and data source ids to slots. Rebuilt from the store at open;
 * switching a document's version here is one synchronous step, which is what makes a replacement
 * atomic for readers.
 */
export class MemoryIndex {
  readonly lexical: LexicalIndex;
  private readonly slots: ChunkSlots;
  private readonly slotsByDocument = new Map<string, number[]>();
  private readonly sourceNumber = new Map<string, number>();
  private readonly liveBySource = new Map<number, number>();
  private nextSourceNumber = 0;
  /** Document id → small number, so the lexical index can pool a document's chunks. */
  private readonly documentNumber = new Map<string, number>();
  private nextDocumentNumber = 0;
  /** The meta of the chunk added last, reused by the next chunk of the same document and write. */
  private lastMeta: ChunkMeta | null = null;

  constructor(
    lexicalParams: LexicalParams,
    restored?: { lexical: LexicalIndex; slots: ChunkSlots },
    texts: TextFileOptions = {},
  ) {
    this.lexical = restored?.lexical ?? new LexicalIndex(lexicalParams);
    this.slots = restored?.slots ?? new ChunkSlots(texts);
  }

  /** The whole index as plain arrays, in one synchronous step (see LexicalState). */
  captureState(): MemoryState {
    return {
      lexical: this.lexical.captureState(),
      slots: this.slots.captureState(),
      sourceNumber: [...this.sourceNumber],
      liveBySource: [...this.liveBySource],
      nextSourceNumber: this.nextSourceNumber,
      documentNumber: [...this.documentNumber],
      nextDocumentNumber: this.nextDocumentNumber,
    };
  }

  /** An index from a captured state's two halves, restored (memory-snapshot.ts). */
  static fromParts(
    params: LexicalParams,
    lexical: LexicalIndex,
    slots: ChunkSlots,
    state: Omit<MemoryState, "lexical" | "slots">,
  ): MemoryIndex {
    const memory = new MemoryIndex(params, { lexical, slots });
    if (memory.slots.length !== memory.lexical.slotCount)
      throw new RangeError("slots and lexical index differ");
    for (const [id, n] of state.sourceNumber) memory.sourceNumber.set(id, n);
    for (const [n, count] of state.liveBySource) memory.liveBySource.set(n, count);
    for (const [id, n] of state.documentNumber) memory.documentNumber.set(id, n);
    memory.nextSourceNumber = state.nextSourceNumber;
    memory.nextDocumentNumber = state.nextDocumentNumber;
    memory.indexSlots();
    return memory;
  }

  /** Live chunks (all sources). */
  get size(): number {
    return this.lexical.size;
  }

  hasDocument(documentId: string): boolean {
    return this.slotsByDocument.has(documentId);
  }

  documentIds(): string[] {
    return [...this.slotsByDocument.keys()];
  }

  liveCount(dataSourceId: string): number {
    const source = this.sourceNumber.get(dataSourceId);
    return source === undefined ? 0 : (this.liveBySource.get(source) ?? 0);
  }

  /** The lexical index's number of a data source that has (or had) chunks here. */
  sourceNumberOf(dataSourceId: string): number | undefined {
    return this.sourceNumber.get(dataSourceId);
  }

  /** The numbers of those data sources that have (or had) chunks here. */
  sourceNumbers(dataSourceIds: readonly string[]): Set<number> {
    const numbers = new Set<number>();
    for (const id of dataSourceIds) {
      const n = this.sourceNumber.get(id);
      if (n !== undefined) numbers.add(n);
    }
    return numbers;
  }

  /** The chunk's slot while the live version of the chunk is the one `writeId` stored; else undefined. */
  liveSlot(chunkId: string, writeId: unknown): number | undefined {
    const slot = this.slots.slotOf(chunkId);
    const meta = slot < 0 ? null : this.slots.meta(slot);
    return meta && meta.writeId === writeId ? slot : undefined;
  }

  /**
   * Adds the stored rows; where a crash between adding a new version and deleting the old left both,
   * the newest write of the document wins. Returns the write ids left behind.
   */
  load(rows: readonly StoredRow[]): Set<string> {
    const newest = new NewestWrites();
    for (const row of rows) newest.note(row.chunk.documentId, row.writeId, row.indexedAt);
    const keep = newest.byDocument();
    const staleWrites = new Set<string>();
    for (const { chunk, writeId } of rows) {
      const kept = keep.get(chunk.documentId);
      if (kept !== undefined && writeId !== kept) staleWrites.add(writeId);
      else this.add(chunk, writeId);
    }
    return staleWrites;
  }

  /**
   * `load` for a table read as a stream: `table` (`ChunkStore.tableWrites`) says which write of each
   * document is the newest, then the rows of those writes are added as their batches arrive — the
   * same slots as `load` gives, without the whole table in memory. Rows of writes the table did not
   * hold when it was read (made since) are left to the change feed.
   */
  async loadStream(table: TableWrites, batches: AsyncIterable<readonly StoredRow[]>): Promise<Set<string>> {
    const staleWrites = new Set<string>();
    for await (const rows of batches) {
      for (const { chunk, writeId } of rows) {
        if (!table.writes.has(writeId)) continue;
        const keep = table.newest.get(chunk.documentId);
        if (keep !== undefined && writeId !== keep) staleWrites.add(writeId);
        else this.add(chunk, writeId);
      }
    }
    return staleWrites;
  }

  /** Adds a chunk; consecutive chunks of one write with the same fields share one ChunkMeta. */
  add(chunk: StoredChunk, writeId: string): void {
    const previous = this.slots.slotOf(chunk.id);
    if (previous >= 0) this.removeSlot(previous);
    let source = this.sourceNumber.get(chunk.dataSourceId);
    if (source === undefined) {
      source = this.nextSourceNumber++;
      this.sourceNumber.set(chunk.dataSourceId, source);
    }
    let meta = this.lastMeta;
    if (!meta || !sharesMeta(meta, chunk, writeId)) {
      meta = {
        workspaceId: chunk.workspaceId,
        dataSourceId: chunk.dataSourceId,
        documentId: chunk.documentId,
        documentVersion: chunk.documentVersion,
        title: chunk.title,
        sourceUrl: chunk.sourceUrl,
        kind: chunk.kind,
        writeId,
        source,
      };
      this.lastMeta = meta;
    }
    const headingText = chunk.headingPath.join(" ");
    let group = this.documentNumber.get(chunk.documentId);
    if (group === undefined) {
      group = this.nextDocumentNumber++;
      this.documentNumber.set(chunk.documentId, group);
    }
    const slot = this.lexical.add(chunk.text, `${chunk.title} ${headingText}`, source, group);
    this.slots.set(slot, chunk, meta);
    const list = this.slotsByDocument.get(chunk.documentId);
    if (list) list.push(slot);
    else this.slotsByDocument.set(chunk.documentId, [slot]);
    this.liveBySource.set(source, (this.liveBySource.get(source) ?? 0) + 1);
  }

  /** The data source of a document's live chunks (undefined when it has none here). */
  sourceOfDocument(documentId: string): string | undefined {
    const slot = this.slotsByDocument.get(documentId)?.[0];
    return slot === undefined ? undefined : this.slots.meta(slot)?.dataSourceId;
  }

  /** The write a document's live chunks came from (undefined when it has none here). */
  liveWriteOf(documentId: string): string | undefined {
    const slot = this.slotsByDocument.get(documentId)?.[0];
    return slot === undefined ? undefined : this.slots.meta(slot)?.writeId;
  }

  removeDocument(documentId: string): void {
    for (const slot of this.slotsByDocument.get(documentId) ?? []) this.removeSlot(slot);
    this.slotsByDocument.delete(documentId);
  }

  removeSources(dataSourceIds: readonly string[]): void {
    const numbers = this.sourceNumbers(dataSourceIds);
    if (numbers.size === 0) return;
    for (let slot = 0; slot < this.slots.length; slot++) {
      const source = this.slots.meta(slot)?.source;
      if (source !== undefined && numbers.has(source)) this.removeSlot(slot);
    }
  }

  /** Drops the numbers of deleted data sources (once their rows are gone from the store). */
  forgetSources(dataSourceIds: readonly string[]): void {
    for (const id of dataSourceIds) {
      const n = this.sourceNumber.get(id);
      if (n !== undefined) this.liveBySource.delete(n);
      this.sourceNumber.delete(id);
    }
  }

  /**
   * Removes every chunk of a workspace and forgets its data sources' numbers (a partitioned replica
   * letting it go; its rows stay in the store). Returns how many chunks went.
   */
  removeWorkspace(workspaceId: string): number {
    const before = this.size;
    const sources = new Set<string>();
    for (let slot = 0; slot < this.slots.length; slot++) {
      const meta = this.slots.meta(slot);
      if (meta?.workspaceId !== workspaceId) continue;
      sources.add(meta.dataSourceId);
      this.removeSlot(slot);
    }
    this.forgetSources([...sources]);
    return before - this.size;
  }

  /** Slots whose text failed its checksum since the last call (their chunks read as null). */
  takeDamagedTexts(): number[] {
    return this.slots.takeDamaged();
  }

  chunkIdAt(slot: number): string | null {
    return this.slots.id(slot);
  }

  /** A slot's text written anew (read again from the table). */
  rewriteText(slot: number, headingPath: readonly string[], text: string): void {
    this.slots.rewriteText(slot, headingPath, text);
  }

  /** A live slot's chunk, rebuilt from the packed columns (only for what a caller returns). */
  chunkAt(slot: number): StoredChunk | null {
    const meta = this.slots.meta(slot);
    const chunk = meta && this.slots.chunk(slot);
    if (!meta || !chunk) return null;
    return {
      ...chunk,
      workspaceId: meta.workspaceId,
      dataSourceId: meta.dataSourceId,
      documentId: meta.documentId,
      documentVersion: meta.documentVersion,
      title: meta.title,
      sourceUrl: meta.sourceUrl,
      kind: meta.kind,
    };
  }

  /** A document's live chunks in document order. */
  chunksOf(documentId: string): StoredChunk[] {
    const chunks: StoredChunk[] = [];
    for (const slot of this.slotsByDocument.get(documentId) ?? []) {
      const chunk = this.chunkAt(slot);
      if (chunk) chunks.push(chunk);
    }
    return chunks.sort((a, b) => a.ordinal - b.ordinal);
  }

  /** Every live chunk whose id is not in `except`, with the write that stored it. */
  chunksExcept(except: ReadonlySet<string>): { chunk: StoredChunk; writeId: string }[] {
    const out: { chunk: StoredChunk; writeId: string }[] = [];
    for (let slot = 0; slot < this.slots.length; slot++) {
      const id = this.slots.id(slot);
      const chunk = id === null || except.has(id) ? null : this.chunkAt(slot);
      const writeId = this.slots.meta(slot)?.writeId;
      if (chunk && writeId) out.push({ chunk, writeId });
    }
    return out;
  }

  /** See LexicalIndex.packPostings: after a rebuild, the posting lists in as few bytes as a load gives. */
  packPostings(): void {
    this.lexical.packPostings();
  }

  /** Renumbers the slots without the removed ones once they make up a fifth of the index. */
  compactIfSparse(): void {
    const dead = this.lexical.deadSlots;
    if (dead === 0 || dead < this.lexical.size * 0.2) return;
    const remap = this.lexical.compact();
    this.slots.compact(remap);
    this.indexSlots();
  }

  /** Text reads that missed the text cache so far. */
  get textMisses(): number {
    return this.slots.textMisses;
  }

  /** Releases the file of chunk texts (the index is not used after). */
  close(): void {
    this.slots.close();
  }

  /** Rebuilds the document → slots map from the slots (they find a chunk id's slot themselves). */
  private indexSlots(): void {
    this.slotsByDocument.clear();
    for (let slot = 0; slot < this.slots.length; slot++) {
      const meta = this.slots.meta(slot);
      if (!meta) continue;
      const list = this.slotsByDocument.get(meta.documentId);
      if (list) list.push(slot);
      else this.slotsByDocument.set(meta.documentId, [slot]);
    }
  }

  private removeSlot(slot: number): void {
    const meta = this.slots.meta(slot);
    if (!meta) return;
    this.lexical.remove(slot);
    this.slots.clear(slot);
    const list = this.slotsByDocument.get(meta.documentId);
    if (list) {
      const rest = list.filter((s) => s !== slot);
      if (rest.length > 0) this.slotsByDocument.set(meta.documentId, rest);
      else {
        this.slotsByDocument.delete(meta.documentId);
        this.documentNumber.delete(meta.documentId);
      }
    }
    this.liveBySource.set(meta.source, (this.liveBySource.get(meta.source) ?? 1) - 1);
  }
}

function sharesMeta(meta: ChunkMeta, chunk: StoredChunk, writeId: string): boolean {
  return (
    meta.writeId === writeId &&
    meta.documentId === chunk.documentId &&
    meta.documentVersion === chunk.documentVersion &&
    meta.workspaceId === chunk.workspaceId &&
    meta.dataSourceId === chunk.dataSourceId &&
    meta.title === chunk.title &&
    meta.sourceUrl === chunk.sourceUrl &&
    meta.kind === chunk.kind
  );
}
