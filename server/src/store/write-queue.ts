/**
 * The process-wide gate every LanceDB write passes through. A backup closes it: new writes wait,
 * running ones finish, and every table then sits at one committed version at the same instant.
 */
export class WriteGate {
  private closed: Promise<void> | null = null;
  private active = 0;
  private drained: Array<() => void> = [];

  async enter(): Promise<void> {
    while (this.closed) await this.closed;
    this.active += 1;
  }

  leave(): void {
    this.active -= 1;
    if (this.active === 0) for (const resolve of this.drained.splice(0)) resolve();
  }

  /**
   * Stops new writes and waits for running ones (at most `timeoutMs`); returns the function that
   * lets writes continue. One pause at a time.
   */
  async pause(timeoutMs = 30_000): Promise<() => void> {
    while (this.closed) await this.closed;
    let open: () => void = () => undefined;
    this.closed = new Promise<void>((resolve) => {
      open = resolve;
    });
    const resume = () => {
      this.closed = null;
      open();
    };
    if (this.active > 0) {
      const drained = new Promise<boolean>((resolve) => {
        this.drained.push(() => resolve(true));
        setTimeout(() => resolve(false), timeoutMs).unref();
      });
      if (!(await drained)) {
        resume();
        throw new Error(`writes did not pause within ${timeoutMs} ms`);
      }
    }
    return resume;
  }
}

export const writeGate = new WriteGate();

/** Runs async tasks one at a time, in order: LanceDB commits to one table must not race. */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const gated = async () => {
      await writeGate.enter();
      try {
        return await task();
      } finally {
        writeGate.leave();
      }
    };
    const result = this.tail.then(gated, gated);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once everything queued so far has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
