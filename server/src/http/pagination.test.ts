import { describe, expect, it } from "vitest";
import { pageJson } from "./pagination.ts";

describe("pageJson", () => {
  it("is JSON.stringify of the page with its items parsed back", () => {
    const items = [{ id: "a", name: 'quote " and \\ and \u2028', n: [1, null] }, { id: "b" }];
    for (const page of [
      { count: 0, next: null, previous: null, results: [] },
      { count: 2, next: null, previous: null, results: items },
      {
        count: 45,
        next: "http://127.0.0.1:8080/api/agents/?page=3&page_size=2",
        previous: 'http://h/"x"?page=1',
        results: items,
      },
    ]) {
      const text = pageJson({ ...page, results: page.results.map((item) => JSON.stringify(item)) });
      expect(text).toBe(JSON.stringify(page));
    }
  });
});
