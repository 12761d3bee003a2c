/**
 * Which workspaces a partitioned chunk index (LORE_INDEX_MAX_CHUNKS) holds in memory, in order of
 * last use, and which of them searches are using right now (those are never let go).
 */
export class HeldWorkspaces {
  /** Held workspace ids, least recently used first (a Map keeps insertion order). */
  private readonly lastUse = new Map<string, number>();
  private readonly pins = new Map<string, number>();
  /** Loads under way, so concurrent searches of one workspace share one load. */
  readonly loading = new Map<string, Promise<void>>();
  /** Data source → workspace, learned from the table (a source never changes workspace). */
  readonly workspaceOfSource = new Map<string, string>();
  private clock = 0;

  constructor(readonly maxChunks: number) {}

  has(workspaceId: string): boolean {
    return this.lastUse.has(workspaceId);
  }

  get count(): number {
    return this.lastUse.size;
  }

  ids(): string[] {
    return [...this.lastUse.keys()];
  }

  /** Marks a workspace held and most recently used. */
  touch(workspaceId: string): void {
    this.lastUse.delete(workspaceId);
    this.lastUse.set(workspaceId, ++this.clock);
  }

  drop(workspaceId: string): void {
    this.lastUse.delete(workspaceId);
  }

  pin(workspaceIds: readonly string[]): void {
    for (const id of workspaceIds) this.pins.set(id, (this.pins.get(id) ?? 0) + 1);
  }

  unpin(workspaceIds: readonly string[]): void {
    for (const id of workspaceIds) {
      const n = (this.pins.get(id) ?? 1) - 1;
      if (n > 0) this.pins.set(id, n);
      else this.pins.delete(id);
    }
  }

  /** Whether any search is running (slots must not be renumbered under it). */
  get searching(): boolean {
    return this.pins.size > 0;
  }

  /** The least recently used held workspace no search is using, if any. */
  evictable(): string | undefined {
    for (const id of this.lastUse.keys()) if (!this.pins.has(id)) return id;
    return undefined;
  }
}
