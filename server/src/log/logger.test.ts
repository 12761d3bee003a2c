import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, flushLogs } from "./logger.ts";

function captureWrites() {
  const writes: Array<{ stream: "out" | "err"; text: string }> = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    writes.push({ stream: "out", text: String(chunk) });
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    writes.push({ stream: "err", text: String(chunk) });
    return true;
  });
  return writes;
}

const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

afterEach(() => {
  flushLogs();
  vi.restoreAllMocks();
});

describe("createLogger", () => {
  it("writes every info line, batched into one write per event-loop turn", async () => {
    const writes = captureWrites();
    const logger = createLogger("info", { service: "lore" });
    for (let i = 0; i < 3; i++) logger.info("request", { i });
    expect(writes).toHaveLength(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    const [first] = writes;
    expect(first?.stream).toBe("out");
    expect(lines(first?.text ?? "").map((l) => [l.msg, l.level, l.service, l.i])).toEqual([
      ["request", "info", "lore", 0],
      ["request", "info", "lore", 1],
      ["request", "info", "lore", 2],
    ]);
  });

  it("flushes the batched lines before a warning, so the order holds across stdout and stderr", () => {
    const writes = captureWrites();
    const logger = createLogger("debug");
    logger.debug("one");
    logger.info("two");
    logger.error("three", { error: "boom" });
    expect(writes.map((w) => [w.stream, lines(w.text).map((l) => l.msg)])).toEqual([
      ["out", ["one", "two"]],
      ["err", ["three"]],
    ]);
  });

  it("writes nothing below its level", async () => {
    const writes = captureWrites();
    const logger = createLogger("warn");
    logger.info("request");
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(0);
  });
});
