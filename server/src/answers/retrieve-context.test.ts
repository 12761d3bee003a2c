import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CorrectionFinder, CorrectionMatch } from "../corrections/corrections-service.ts";
import type { ChatMessage } from "../generation/types.ts";
import { ChunkIndex } from "../retrieval/chunk-index.ts";
import { makeStoredChunk } from "../retrieval/test-chunks.ts";
import type { Store } from "../store/store.ts";
import { type ContextRequest, retrieveContext } from "./retrieve-context.ts";
import { makeAgent, openConversations } from "./test-answers.ts";

const [workspaceId, sourceId] = [randomUUID(), randomUUID()];
const articles = [
  "Orders ship within two working days from our warehouse.",
  "You can cancel an order free of charge until it ships.",
  "Returns are free within 30 days of delivery.",
  "Gift cards never expire and can pay for any order.",
];
const agent = makeAgent({
  workspaceId,
  dataSourceIds: [sourceId],
  retrieval: { topK: 2, mode: "keyword", minScore: 0 },
});
const noCorrection: CorrectionFinder = { find: async () => null };

let store: Store;
let index: ChunkIndex;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ store, close } = await openConversations());
  index = await ChunkIndex.open(store.db, { embedder: null });
  for (const [ordinal, text] of articles.entries()) {
    const documentId = randomUUID();
    await index.replaceDocument(documentId, [
      makeStoredChunk({ workspaceId, dataSourceId: sourceId, documentId, ordinal, text }),
    ]);
  }
});
afterAll(async () => close());

function request(fields: Partial<ContextRequest> = {}): ContextRequest {
  return {
    agent,
    message: "Can I cancel an order?",
    history: [],
    sourceIds: [sourceId],
    model: { condense: async () => "unused" },
    signal: new AbortController().signal,
    ...fields,
  };
}

describe("retrieveContext", () => {
  it("finds the passages for a question, the agent's topK to read and a wider pool of articles that may help", async () => {
    const context = await retrieveContext({ store, index, corrections: noCorrection }, request());
    if (context.kind !== "passages") throw new Error("expected passages");
    expect(context.chunks).toHaveLength(2);
    expect(context.chunks[0]?.text).toContain("cancel an order");
    expect(context.pool.length).toBeGreaterThan(2);
    expect(context.pool.slice(0, 2)).toEqual(context.chunks);
    expect(context).toMatchObject({ standalone: "Can I cancel an order?", judged: "Can I cancel an order?" });
  });

  it("searches a follow-up as the standalone question the model condensed it to", async () => {
    const history: ChatMessage[] = [
      { role: "user", content: "Can I cancel an order?" },
      { role: "assistant", content: "You can cancel an order free of charge until it ships." },
    ];
    const condensed: string[] = [];
    const model = {
      condense: async (question: string, turns: ChatMessage[]) => {
        condensed.push(`${question} | ${turns.length}`);
        return "Do returns cost anything after delivery?";
      },
    };
    const context = await retrieveContext(
      { store, index, corrections: noCorrection },
      request({ message: "And after delivery?", history, model }),
    );
    expect(condensed).toEqual(["And after delivery? | 2"]);
    if (context.kind !== "passages") throw new Error("expected passages");
    expect(context.standalone).toBe("Do returns cost anything after delivery?");
    expect(context.chunks[0]?.text).toContain("Returns are free");
  });

  it("takes the owner's correction before any search", async () => {
    const match = { correction: { id: "correction-1" }, score: 0.9 } as CorrectionMatch;
    const asked: string[] = [];
    const corrections: CorrectionFinder = {
      find: async (_agent, question) => {
        asked.push(question);
        return match;
      },
    };
    const model = {
      condense: async (): Promise<string> => {
        throw new Error("a corrected question is not condensed");
      },
    };
    const history: ChatMessage[] = [{ role: "user", content: "Hello" }];
    const context = await retrieveContext({ store, index, corrections }, request({ history, model }));
    expect(context).toEqual({ kind: "correction", match });
    expect(asked).toEqual(["Can I cancel an order?"]);
  });
});
