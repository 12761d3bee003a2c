/** The 20-second smoke version of the load soak (bench/src/soak.ts runs it for minutes). */
import { describe, expect, it } from "vitest";
import { runSoak } from "../../bench/src/soak.ts";

describe("soak (smoke)", () => {
  it("serves 20 s of mixed traffic from another process with no errors and bounded memory", async () => {
    const report = await runSoak({ seconds: 20, concurrency: 6, windowSeconds: 5 });
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
  }, 90_000);
});
