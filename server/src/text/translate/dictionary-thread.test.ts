import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DictionaryThread, type ThreadAnswer } from "./dictionary-thread.ts";

const dir = mkdtempSync(join(tmpdir(), "lore-dictionaries-"));
writeFileSync(
  join(dir, "es.json"),
  JSON.stringify({ language: "es", source: "test", licence: "test", entries: [["pago", ["payment"]]] }),
);
// A dictionary large enough that its thread is still reading it when the test ends the thread.
writeFileSync(
  join(dir, "de.json"),
  JSON.stringify({
    language: "de",
    source: "test",
    licence: "test",
    entries: Array.from({ length: 300_000 }, (_, i) => [`wort${i}`, [`word${i}`, `term${i}`]]),
  }),
);
const keys = { lookups: ["pago"], headwords: [] };
const threads: DictionaryThread[] = [];
afterEach(async () => {
  await Promise.all(threads.splice(0).map((t) => t.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Asks until the dictionary is read (the first questions come while it is). */
async function untilFound(thread: DictionaryThread): Promise<ThreadAnswer> {
  let answer = await thread.lookUp("es", keys);
  for (let tries = 0; tries < 200 && answer.kind !== "found"; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await thread.lookUp("es", keys);
  }
  return answer;
}

describe("DictionaryThread", () => {
  it("answers a question waiting when its thread dies as stopped, says so once, and starts another on the next", async () => {
    const stopped: string[] = [];
    const thread = new DictionaryThread(dir, (message) => stopped.push(message));
    threads.push(thread);
    const first = await untilFound(thread);
    expect(first.kind === "found" && first.table.lookup("pago")).toEqual(["payment"]);
    // Asked while the thread reads another dictionary (a lookup alone may be answered before it dies).
    const waiting = thread.lookUp("de", { lookups: ["wort1"], headwords: [] });
    // The thread dies (as an out-of-memory or a crash would end it).
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    expect((await waiting).kind).toBe("stopped");
    expect(stopped).toHaveLength(1);
    const again = await untilFound(thread);
    expect(again.kind === "found" && again.table.lookup("pago")).toEqual(["payment"]);
    expect(stopped).toHaveLength(1);
  }, 60_000);
});
