import { appendFileSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Journal } from "./journal.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "lore-journal-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("Journal", () => {
  it("applies written entries in order on flush and leaves no segment behind", async () => {
    const dir = tempDir();
    const applied: number[][] = [];
    const journal = await Journal.open<number>(dir, async (e) => void applied.push(e), {
      intervalMs: 60_000,
    });
    journal.write(1);
    journal.write(2);
    await journal.flush();
    journal.write(3);
    await journal.close();
    expect(applied).toEqual([[1, 2], [3]]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("resolves a flush only once the entries written before it are applied, when a flush was under way", async () => {
    const dir = tempDir();
    const applied: number[] = [];
    const journal = await Journal.open<number>(
      dir,
      async (e) => {
        // Applying takes a while, as a LanceDB commit does.
        await new Promise((resolve) => setTimeout(resolve, 30));
        applied.push(...e);
      },
      { intervalMs: 60_000 },
    );
    journal.write(1);
    const first = journal.flush();
    // Two callers write while the first flush runs; the earlier one's wait starts the next flush.
    journal.write(2);
    const second = journal.flush();
    journal.write(3);
    await journal.flush();
    expect(applied).toEqual([1, 2, 3]);
    await Promise.all([first, second]);
    await journal.close();
  });

  it("replays what a killed process wrote but never applied, ignoring a torn last line", async () => {
    const dir = tempDir();
    // A process that wrote and died before its flush: the journal files are all that is left.
    const first = await Journal.open<string>(dir, async () => {}, { intervalMs: 60_000 });
    first.write("a");
    first.write("b");
    appendFileSync(join(dir, "current.jsonl"), '"tor');
    const replayed: string[] = [];
    const second = await Journal.open<string>(dir, async (e) => void replayed.push(...e), {
      intervalMs: 60_000,
    });
    expect(replayed).toEqual(["a", "b"]);
    await second.close();
  });

  it("keeps entries on disk when applying fails, and applies them on a later flush", async () => {
    const dir = tempDir();
    let failing = true;
    const applied: string[] = [];
    const errors: unknown[] = [];
    const journal = await Journal.open<string>(
      dir,
      async (e) => {
        if (failing) throw new Error("disk full");
        applied.push(...e);
      },
      { intervalMs: 60_000, onError: (err) => errors.push(err) },
    );
    journal.write("x");
    await journal.flush();
    expect(applied).toEqual([]);
    expect(errors).toHaveLength(1);
    failing = false;
    journal.write("y");
    await journal.flush();
    expect(applied).toEqual(["x", "y"]);
    await journal.close();
  });

  it("backs off while the store keeps failing, instead of retrying (and logging) at every tick", async () => {
    const dir = tempDir();
    const errors: unknown[] = [];
    let attempts = 0;
    const journal = await Journal.open<string>(
      dir,
      async () => {
        attempts += 1;
        throw new Error("store unreachable");
      },
      { intervalMs: 5, onError: (err) => errors.push(err) },
    );
    journal.write("x");
    await new Promise((resolve) => setTimeout(resolve, 400));
    // Every 5 ms would be about 80 attempts; after the first failure the next waits 500 ms.
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeLessThanOrEqual(2);
    // Kept on disk: a caller's own flush still tries at once.
    await journal.flush();
    expect(attempts).toBeGreaterThanOrEqual(2);
    // Reported once for the streak (then once a minute), not at every attempt.
    expect(errors).toHaveLength(1);
    expect(readdirSync(dir).some((f) => f.endsWith(".jsonl"))).toBe(true);
    await journal.close();
  });

  it("survives its directory vanishing and applies what it holds once the directory is back", async () => {
    const root = tempDir();
    const dir = join(root, "journal");
    const applied: string[] = [];
    const errors: unknown[] = [];
    const journal = await Journal.open<string>(dir, async (entries) => void applied.push(...entries), {
      intervalMs: 5,
      onError: (err) => errors.push(err),
    });
    journal.write("x");
    // The directory is moved away (an unmounted volume, a deleted data dir): no throw reaches the timer.
    renameSync(dir, join(root, "away"));
    await journal.flush();
    expect(applied).toEqual([]);
    expect(errors).toHaveLength(1);
    renameSync(join(root, "away"), dir);
    await journal.flush();
    expect(applied).toEqual(["x"]);
    await journal.close();
  });
});
