/**
 * Group commit: items added while a commit runs wait and go together into the next one (at most
 * `maxBatch` at a time). Each caller's promise settles when its own item's commit does.
 */
export class GroupCommit<T> {
  private pending: Array<{ item: T; done: (error?: unknown) => void }> = [];
  private running = false;

  constructor(
    private readonly commit: (items: T[]) => Promise<void>,
    private readonly maxBatch = Number.POSITIVE_INFINITY,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, done: (error) => (error ? reject(error) : resolve()) });
      if (!this.running) void this.drain();
    });
  }

  /** A commit is running or items are waiting for one. */
  get busy(): boolean {
    return this.running || this.pending.length > 0;
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      try {
        await this.commit(batch.map((b) => b.item));
        for (const b of batch) b.done();
      } catch (error) {
        for (const b of batch) b.done(error);
      }
    }
    this.running = false;
  }
}
