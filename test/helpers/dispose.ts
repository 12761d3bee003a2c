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
