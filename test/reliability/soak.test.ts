/** The 20-second smoke version of the load soak (bench/src/soak.ts runs it for minutes). */
import { describe, expect, it } from "vitest";
import { runSoak } from "../../bench/src/soak.ts";

describe("soak (smoke)", () => {
  it("serves 20 s of mixed traffic from another process with no errors and bounded memory", async () => {
    const report = await runSoak({ seconds: 20, concurrency: 6, windowSeconds: 5, gcEverySeconds: 2 });
    expect(report.serverDied).toBeNull();
    expect(report.errorSamples).toEqual([]);
    expect(report.errors).toBe(0);
    expect(report.requests).toBeGreaterThan(100);
    for (const action of [
      "query",
      "query_sse",
      "widget_query",
      "search",
      "list",
      "upload",
      "text_source",
      "sync",
    ]) {
      expect(report.byAction[action]?.requests ?? 0, action).toBeGreaterThan(0);
    }
    expect(report.rss.maxMb).toBeGreaterThan(0);
    expect(report.rss.maxMb).toBeLessThan(1024);

    // Flatness, loosely: 20 s is mostly warm-up (RSS still rises a few MB/s), so these bounds catch
    // gross leaks only; the 10-minute soak in docs/reliability.md is the real measure.
    const between = (from: number, to: number) =>
      report.memory.filter((m) => m.second >= from && m.second < to);
    const middle = between(5, 10);
    const end = between(15, 21);
    expect(middle.length).toBeGreaterThan(2);
    expect(end.length).toBeGreaterThan(2);
    // RSS over the last 5 s stays within 100 MB of its level 10 s earlier (seen: -3 to +28 MB).
    expect(Math.max(...end.map((m) => m.rssMb))).toBeLessThan(Math.max(...middle.map((m) => m.rssMb)) + 100);
    // The live JS heap (sampled right after a full collection every 2 s) stays within 16 MB of the
    // middle's (seen: +0 to +3 MB). Without the collections the sampled heap rises 40 MB between
    // V8's own major collections, which is no leak.
    const live = (samples: typeof middle) => samples.filter((m) => m.afterGc).map((m) => m.heapUsedMb);
    expect(live(middle).length).toBeGreaterThan(0);
    expect(live(end).length).toBeGreaterThan(0);
    expect(Math.max(...live(end))).toBeLessThan(Math.max(...live(middle)) + 16);
    // Buffers and other memory outside the JS heap do not pile up.
    expect(Math.max(...end.map((m) => m.externalMb))).toBeLessThan(
      Math.max(...middle.map((m) => m.externalMb)) + 16,
    );
  }, 120_000);
});
