import { describe, expect, it } from "vitest";
import { buildMessages } from "./prompt.ts";
import { HANDBOOK, makeChunk } from "./test-chunks.ts";
import type { ChatMessage, GenerateInput } from "./types.ts";

const base: GenerateInput = {
  question: "How long do refunds take?",
  history: [],
  chunks: HANDBOOK.slice(0, 2),
  instructions: "You are Acme's support assistant. Answer in a friendly tone.",
  fallbackMessage: "Sorry, I don't know that.",
  temperature: 0.2,
  maxTokens: 400,
};

describe("buildMessages", () => {
  it("puts instructions, grounding rules and numbered sources in the system message", () => {
    const [system] = buildMessages(base);
    expect(system?.role).toBe("system");
    const content = system?.content ?? "";
    expect(content.startsWith("You are Acme's support assistant. Answer in a friendly tone.")).toBe(true);
    expect(content).toContain("reply exactly with: Sorry, I don't know that.");
    expect(content).toContain("[1] Refunds — Customers can request a refund within 30 days of purchase.");
    expect(content).toContain("[2] Shipping — Standard shipping takes 3 to 5 business days.");
    expect(content).toMatch(/cite/i);
  });

  it("sends the last ten history messages, then the question", () => {
    const history: ChatMessage[] = Array.from({ length: 14 }, (_, i) => ({
      role: i % 2 === 0 ? "user" : "assistant",
      content: `turn ${i}`,
    }));
    const messages = buildMessages({ ...base, history });
    expect(messages.map((m) => m.content).slice(1)).toEqual([
      ...history.slice(4).map((m) => m.content),
      "How long do refunds take?",
    ]);
    expect(messages.at(-1)?.role).toBe("user");
  });

  it("names a chunk's heading path and says so when there are no sources", () => {
    const chunk = makeChunk(0, "Guide", "Body text.", { headingPath: ["Setup", "Install"] });
    expect(buildMessages({ ...base, chunks: [chunk] })[0]?.content).toContain(
      "[1] Guide › Setup › Install — Body text.",
    );
    expect(buildMessages({ ...base, chunks: [] })[0]?.content).toContain("(no sources)");
  });

  it("gives each passage with its line breaks and without repeating its heading context line", () => {
    const text =
      "Sync > Set up\n\nTo set up sync:\n\n1. Open Settings\n2. Scan the code\n\n| Plan | Price |\n| --- | --- |\n| Pro | 9 |";
    const chunk = makeChunk(0, "Sync & Backup", text, { headingPath: ["Sync", "Set up"] });
    const content = buildMessages({ ...base, chunks: [chunk] })[0]?.content ?? "";
    expect(content).toContain(
      "[1] Sync & Backup › Sync › Set up — To set up sync:\n\n1. Open Settings\n2. Scan the code\n\n| Plan | Price |\n| --- | --- |\n| Pro | 9 |",
    );
    expect(content).not.toContain("Sync > Set up");
  });
});
