import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultTheme } from "../agents/agents-service.ts";
import { ConversationsService } from "../conversations/conversations-service.ts";
import type { RetrievedChunk } from "../generation/types.ts";
import type { AgentRecord } from "../store/records.ts";
import { Store } from "../store/store.ts";

/** An agent for the answer stages' tests: keyword retrieval, a custom fallback, `fields` overriding any. */
export function makeAgent(fields: Partial<AgentRecord> = {}): AgentRecord {
  const now = new Date().toISOString();
  return {
    id: "agent",
    workspaceId: "workspace",
    name: "Shop",
    description: "",
    instructions: "Answer briefly from the sources.",
    model: "extractive",
    temperature: 0.2,
    maxTokens: 800,
    retrieval: { topK: 5, mode: "keyword", minScore: 0 },
    welcomeMessage: "Hi!",
    suggestedQuestions: [],
    fallbackMessage: "Sorry, I can't help with that.",
    answerPolicy: "balanced",
    language: null,
    dataSourceIds: [],
    widgetId: "wgt_test",
    allowedOrigins: [],
    theme: defaultTheme,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

/** A retrieved chunk of document `documentId` (title the same), `fields` overriding any. */
export function makeRetrievedChunk(documentId: string, text: string, fields: Partial<RetrievedChunk> = {}) {
  return {
    chunkId: `${documentId}-0`,
    documentId,
    dataSourceId: "source",
    dataSourceName: "Help center",
    kind: "text",
    title: documentId,
    sourceUrl: null,
    text,
    score: 0.8,
    page: null,
    headingPath: [],
    ...fields,
  } satisfies RetrievedChunk;
}

/** A store and conversations on a fresh directory; `close` removes them. */
export async function openConversations(): Promise<{
  store: Store;
  conversations: ConversationsService;
  close: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), "lore-answers-"));
  const store = await Store.open(dir, { indexMb: 8, metadataMb: 8 });
  const conversations = await ConversationsService.open(store);
  return {
    store,
    conversations,
    async close() {
      await conversations.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
