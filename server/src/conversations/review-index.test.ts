import { describe, expect, it } from "vitest";
import type { MessageRecord } from "../store/records.ts";
import { fallbackMessages } from "../text/messages.ts";
import { countMessages, ReviewIndex, upgradeMessage } from "./review-index.ts";
import { makeMessage } from "./test-messages.ts";

type Stored = Omit<MessageRecord, "fallback" | "correctionId"> & Partial<MessageRecord>;

/** A message as stored before `fallback` and `correctionId` existed. */
function stored(fields: Partial<MessageRecord> = {}): Stored {
  const { fallback: _f, correctionId: _c, ...old } = makeMessage({ agentId: "a1", ...fields });
  return { ...old, ...fields };
}

describe("messages stored before answers recorded their fallback", () => {
  it("reads a complete answer with the agent's fallback text as a fallback", () => {
    expect(upgradeMessage(stored({ content: "Ask the shop." }), "Ask the shop.")).toMatchObject({
      fallback: true,
      correctionId: null,
    });
    expect(upgradeMessage(stored({ content: fallbackMessages.de }), "Custom")).toMatchObject({
      fallback: true,
    });
  });

  it("reads other answers, stopped ones and questions as answered", () => {
    expect(upgradeMessage(stored(), "Ask the shop.").fallback).toBe(false);
    expect(
      upgradeMessage(stored({ content: "Ask the shop.", status: "stopped" }), "Ask the shop.").fallback,
    ).toBe(false);
    expect(upgradeMessage(stored({ role: "user", content: "Ask the shop." }), "Ask the shop.").fallback).toBe(
      false,
    );
  });

  it("keeps a recorded flag", () => {
    expect(
      upgradeMessage(
        stored({ fallback: false, correctionId: "x", content: "Ask the shop." }),
        "Ask the shop.",
      ),
    ).toMatchObject({
      fallback: false,
      correctionId: "x",
    });
  });
});

describe("review counts", () => {
  const message = (fields: Partial<MessageRecord>) => makeMessage({ agentId: "a1", ...fields });

  it("counts a re-rated answer once, by its latest rating", async () => {
    const answer = message({ feedback: "up" });
    const index = new ReviewIndex(async () => [answer]);
    expect((await index.countsFor("a1"))("c1")).toEqual({
      upvotes: 1,
      downvotes: 0,
      unanswered: 0,
      uncertain: 0,
    });
    index.note({ ...answer, feedback: "down" });
    index.note(message({ fallback: true }));
    expect((await index.countsFor("a1"))("c1")).toEqual({
      upvotes: 0,
      downvotes: 1,
      unanswered: 1,
      uncertain: 0,
    });
  });

  it("keeps what was noted while the agent's messages were loading", async () => {
    let release: (list: MessageRecord[]) => void = () => {};
    const loaded = new Promise<MessageRecord[]>((resolve) => {
      release = resolve;
    });
    const first = message({ feedback: "down" });
    const index = new ReviewIndex(() => loaded);
    const counts = index.countsFor("a1");
    index.note({ ...first, feedback: "up" });
    release([first]);
    expect((await counts)("c1")).toEqual({ upvotes: 1, downvotes: 0, unanswered: 0, uncertain: 0 });
    expect(countMessages([first, { ...first, feedback: "up" }])).toEqual({
      upvotes: 1,
      downvotes: 0,
      unanswered: 0,
      uncertain: 0,
    });
  });

  it("counts the answers given with a doubt", () => {
    const doubt = makeMessage({ role: "assistant", outcome: "uncertain" });
    expect(countMessages([doubt, makeMessage({ role: "assistant", outcome: "answered" })])).toEqual({
      upvotes: 0,
      downvotes: 0,
      unanswered: 0,
      uncertain: 1,
    });
  });
});
