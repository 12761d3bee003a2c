import { afterAll } from "vitest";

type Disposal = () => Promise<void> | void;

/**
 * A list for a test file's disposals (`disposals.push(() => server.close())`), run last-first once
 * all its tests are done, so what started later stops first.
 */
export function disposeAfterAll(): Disposal[] {
  const disposals: Disposal[] = [];
  afterAll(async () => {
    for (const dispose of disposals.reverse()) await dispose();
  });
  return disposals;
}

/** Closes what a file started, in the order given; what never started (undefined) is passed over. */
export async function closeAll(...started: Array<{ close(): Promise<void> } | undefined>): Promise<void> {
  for (const thing of started) await thing?.close();
}
