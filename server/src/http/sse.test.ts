import { describe, expect, it } from "vitest";
import { answerEventEncoder } from "./sse.ts";

describe("answerEventEncoder", () => {
  it("gives each event an id of the message and its number, and data only (no event name)", () => {
    const encode = answerEventEncoder();
    const messageId = "9f2e0000-0000-4000-8000-000000000000";
    const start = encode({ type: "start", query_id: "q", conversationId: messageId, messageId });
    const token = encode({ type: "token", token: "Hi" });
    const error = encode({ type: "error", error: "upstream_error", message: "down" });
    expect([start, token, error].map((e) => e.split("\n")[0])).toEqual([
      `id: ${messageId}:0`,
      `id: ${messageId}:1`,
      `id: ${messageId}:2`,
    ]);
    expect(token).toBe(`id: ${messageId}:1\ndata: {"type":"token","token":"Hi"}\n\n`);
    expect([start, token, error].some((e) => e.includes("event:"))).toBe(false);
  });

  it("numbers each stream on its own", () => {
    const a = answerEventEncoder();
    a({ type: "token", token: "x" });
    expect(answerEventEncoder()({ type: "token", token: "y" }).split("\n")[0]).toBe("id: 0");
  });
});
