// Issue #29 item 2: the extractive answer reads as an answer.
import { describe, expect, it } from "vitest";
import { answerUnits } from "./answer-units.ts";
import { composeExtractiveAnswer } from "./extractive-model.ts";
import { makeChunk } from "./test-chunks.ts";

const FALLBACK = "Sorry, I don't know.";

describe("readable extractive answers", { timeout: 60_000 }, () => {
  it("never glues an inline heading onto the first sentence", () => {
    // The chunker keeps a merged section's heading as a line of its own above the text.
    const chunk = makeChunk(
      0,
      "Acme Widget Pro",
      "Installing the Acme Widget Pro\nUnpack the box and fix the mounting plate to the wall. Then click the widget onto the plate.\n\nCleaning\nWipe it with a dry cloth.",
    );
    const { answer } = composeExtractiveAnswer("How do I install the Acme Widget Pro?", [chunk], FALLBACK);
    expect(answer).not.toContain("Installing the Acme Widget Pro");
    expect(answer.startsWith("Unpack the box")).toBe(true);
    expect(answerUnits(chunk.text).map((u) => u.heading)).toEqual([
      "Installing the Acme Widget Pro",
      "Installing the Acme Widget Pro",
      "Cleaning",
    ]);
  });

  it("keeps a wrapped line of prose as prose (not a heading)", () => {
    const units = answerUnits("Standard shipping takes three to five business\ndays within the country.");
    expect(units.map((u) => u.text)).toEqual([
      "Standard shipping takes three to five business days within the country.",
    ]);
  });

  it("answers from one article when the question has one focus", () => {
    const chunks = [
      makeChunk(0, "Returns", "You can return any item within 30 days of delivery."),
      makeChunk(1, "Exchanges", "You can return any item within 30 days of delivery to exchange it.", {
        score: 0.9,
      }),
    ];
    const { usedChunks } = composeExtractiveAnswer(
      "Within how many days can I return an item?",
      chunks,
      FALLBACK,
      {
        otherChunkRatio: 0.5,
      },
    );
    expect(usedChunks.map((c) => c.title)).toEqual(["Returns"]);
  });

  it("may use two articles when the question compares two things", () => {
    const chunks = [
      makeChunk(0, "Standard shipping", "Standard shipping takes five days."),
      makeChunk(1, "Express shipping", "Express shipping takes one day.", { score: 0.9 }),
    ];
    const { usedChunks } = composeExtractiveAnswer(
      "What is the difference between standard and express shipping?",
      chunks,
      FALLBACK,
      { otherChunkRatio: 0.5 },
    );
    expect(usedChunks.map((c) => c.title).sort()).toEqual(["Express shipping", "Standard shipping"]);
  });

  it("appends no sentence that shares nothing with the question", () => {
    const chunk = makeChunk(
      0,
      "Warranty",
      "Every appliance carries a two year warranty. Our staff are friendly and helpful. The warranty does not cover water damage.",
    );
    const { answer } = composeExtractiveAnswer("What warranty do appliances carry?", [chunk], FALLBACK, {
      sameChunkRatio: 0,
    });
    expect(answer).toContain("two year warranty");
    expect(answer).not.toContain("friendly");
  });

  it("keeps a sentence that goes on from the picked one", () => {
    const chunk = makeChunk(
      0,
      "Search URL",
      "You may notice an atb parameter in the search URL. This parameter allows us to run anonymous split tests. Our logo is orange.",
    );
    const { answer } = composeExtractiveAnswer("What is the atb thing in my search url?", [chunk], FALLBACK, {
      sameChunkRatio: 0,
    });
    expect(answer).toContain("anonymous split tests");
    expect(answer).not.toContain("orange");
  });

  it("keeps the next sentence of the paragraph when the question asks how to do something", () => {
    const chunk = makeChunk(
      0,
      "Forgotten password",
      "If you forgot your password, click Forgot password on the sign-in page. We then e-mail you a link to set a new one. Our office is in Berlin.",
    );
    const howTo = composeExtractiveAnswer("I forgot my password, what should I do?", [chunk], FALLBACK, {
      sameChunkRatio: 0,
    }).answer;
    expect(howTo).toContain("e-mail you a link");
    expect(howTo).not.toContain("Berlin");
    // Not a procedure: the next sentence shares nothing with the question and is left out.
    const what = composeExtractiveAnswer("Where is the forgot password button?", [chunk], FALLBACK, {
      sameChunkRatio: 0,
    }).answer;
    expect(what).toContain("Forgot password");
    expect(what).not.toContain("e-mail you a link");
  });

  it("keeps a step between two picked steps of a procedure", () => {
    const chunk = makeChunk(
      0,
      "Change search engine in Chrome",
      "Open the Chrome browser on your phone.\n\nTap More > Settings.\n\nUnder Basics, select Search engine.",
    );
    const { answer } = composeExtractiveAnswer(
      "How do I change the search engine in Chrome?",
      [chunk],
      FALLBACK,
      {
        sameChunkRatio: 0,
      },
    );
    expect(answer).toContain("Tap More > Settings.");
  });

  it("keeps a numbered procedure as a numbered list, one step a line", () => {
    const chunk = makeChunk(
      0,
      "Installation",
      "To install the widget:\n\n1. Unpack the box.\n2. Fix the plate to the wall.\n3. Click the widget onto the plate.",
    );
    const { answer } = composeExtractiveAnswer("How do I install the widget?", [chunk], FALLBACK);
    expect(answer).toContain(
      "1. Unpack the box.\n2. Fix the plate to the wall.\n3. Click the widget onto the plate.",
    );
  });

  // Issue #50 item 1: the unit of an answer is the section.
  it("gives the rest of the lead's section: a rule keeps its exception", () => {
    const chunk = makeChunk(
      0,
      "Cancelling an order",
      "You can cancel an order free of charge until it ships. Once shipped, use the returns process and we refund the order within 5 days.\n\nTracking\nEvery parcel has a tracking number.",
    );
    const { answer } = composeExtractiveAnswer("Can I cancel my order after it ships?", [chunk], FALLBACK);
    expect(answer.startsWith("You can cancel an order free of charge until it ships.")).toBe(true);
    expect(answer).toContain("Once shipped, use the returns process");
    // Another section of the chunk is not this answer's.
    expect(answer).not.toContain("tracking number");
  });

  it("leads with the sentence that names the question's focus, then goes on in order", () => {
    const chunk = makeChunk(
      0,
      "Passwords",
      "Our sign-in page works in every browser. To reset your password, open Settings and choose Reset password. We then e-mail you a link that is valid for one hour. The link can be used once.",
    );
    const { answer } = composeExtractiveAnswer("How do I reset my password?", [chunk], FALLBACK);
    expect(answer.startsWith("To reset your password")).toBe(true);
    expect(answer).toContain("valid for one hour");
    expect(answer).toContain("used once");
    expect(answer).not.toContain("every browser");
  });

  it("keeps a section answer within its word budget", () => {
    const steps = Array.from(
      { length: 40 },
      (_, i) => `Step ${i + 1} of the export copies the data of part ${i + 1}.`,
    );
    const chunk = makeChunk(
      0,
      "Exporting data",
      `To export your data, open Settings and choose Export. ${steps.join(" ")}`,
    );
    const { answer } = composeExtractiveAnswer("How do I export my data?", [chunk], FALLBACK);
    const words = answer.split(/\s+/).length;
    expect(answer).toContain("Step 1 of the export");
    expect(words).toBeLessThanOrEqual(170);
    expect(answer).not.toContain("Step 40 ");
  });

  it("reads a short section in order when its best sentence holds too little of the question alone", () => {
    const chunks = [
      makeChunk(
        0,
        "Resetting your password",
        "You can reset your password from the sign-in page. Click Forgot password and enter your e-mail address. We then send you a link that stays valid for one hour.",
      ),
      makeChunk(1, "Two-factor sign-in", "Sign-in codes are valid for ten minutes. Each code works once.", {
        score: 0.5,
      }),
    ];
    const { answer } = composeExtractiveAnswer("how long is the reset link valid?", chunks, FALLBACK);
    // The step between the two sentences that name the question stays: the section reads as written.
    expect(answer).toBe(
      "You can reset your password from the sign-in page. Click Forgot password and enter your e-mail address. We then send you a link that stays valid for one hour. [1]",
    );
  });

  it("reads a procedure's steps in order, whatever words they use", () => {
    const chunk = makeChunk(
      0,
      "Change the search engine in Chrome on Android",
      "Open the Chrome browser on your Android phone.\n\nTo the right of the address bar, tap More > Settings.\n\nUnder Basics, select Search engine.",
    );
    const { answer } = composeExtractiveAnswer(
      "chrome on android keeps searching with google, how do I switch",
      [chunk],
      FALLBACK,
    );
    expect(answer).toContain("tap More > Settings.\n\nUnder Basics, select Search engine.");
  });

  it("takes no section whose own words say nothing of the question, whatever its rank", () => {
    const chunks = [
      makeChunk(
        0,
        "Credit freeze",
        "Identity theft is complicated and always evolving. Recovery services can guide you.",
        {
          headingPath: ["Consider a recovery service"],
        },
      ),
      makeChunk(1, "Credit freeze", "Freezing your credit is free and can be lifted at any time.", {
        headingPath: ["How to put a freeze on your credit"],
        score: 0.5,
      }),
    ];
    const { answer } = composeExtractiveAnswer("does a credit freeze cost money", chunks, FALLBACK);
    expect(answer).toContain("Freezing your credit is free");
    expect(answer).not.toContain("complicated");
  });
});
