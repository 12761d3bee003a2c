import { describe, expect, it } from "vitest";
import { type DocumentChunk, renderPage } from "./document-pages.ts";

const chunk = (ordinal: number, headingPath: string[], body: string): DocumentChunk => ({
  ordinal,
  headingPath,
  page: null,
  text: headingPath.length > 0 ? `${headingPath.join(" > ")}\n\n${body}` : body,
});

describe("renderPage", () => {
  it("says each heading path once, without the context line every chunk starts with", () => {
    const page = renderPage([
      chunk(0, ["Guide", "Install"], "Run the installer."),
      chunk(1, ["Guide", "Install"], "Then restart."),
      chunk(2, ["Guide", "Use"], "Open the app."),
    ]);
    expect(page).toBe(
      "## Guide › Install\n\nRun the installer.\n\nThen restart.\n\n## Guide › Use\n\nOpen the app.",
    );
  });

  it("drops the sentences a chunk repeats from the one before, also across pages", () => {
    const first = chunk(0, [], "One is first. Two is second. Three is third.");
    const second = chunk(1, [], "Three is third. Four is fourth.");
    const third = chunk(2, [], "Four is fourth. Five is fifth.");
    expect(renderPage([first, second])).toBe(
      "One is first. Two is second. Three is third.\n\nFour is fourth.",
    );
    expect(renderPage([third], second)).toBe("Five is fifth.");
  });

  it("keeps a chunk whole when it repeats nothing", () => {
    const page = renderPage([chunk(0, [], "Alpha beta."), chunk(1, [], "Gamma delta.")]);
    expect(page).toBe("Alpha beta.\n\nGamma delta.");
  });
});
