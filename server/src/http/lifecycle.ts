/**
 * The process's place in its life: serving, or draining for shutdown (readiness fails first so a
 * proxy stops sending new work, then the listener closes and in-flight work finishes).
 */
export class Lifecycle {
  private isDraining = false;

  get draining(): boolean {
    return this.isDraining;
  }

  /** Marks the process as draining; `/readyz` answers 503 from now on. */
  startDraining(): void {
    this.isDraining = true;
  }
}
