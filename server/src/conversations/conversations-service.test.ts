import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { MessageRecord } from "../store/records.ts";
import { Store } from "../store/store.ts";
import { ConversationsService } from "./conversations-service.ts";
import { makeMessage } from "./test-messages.ts";

function message(conversationId: string, role: "user" | "assistant", content: string): MessageRecord {
  return makeMessage({ conversationId, role, content });
}

describe("ConversationsService", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function open(): Promise<{ store: Store; conversations: ConversationsService }> {
    const dir = mkdtempSync(join(tmpdir(), "lore-conversations-"));
    const store = await Store.open(dir, { indexMb: 8, metadataMb: 8 });
    const conversations = await ConversationsService.open(store);
    cleanups.push(async () => {
      await conversations.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return { store, conversations };
  }

  it("forgets journaled messages once they are in LanceDB", async () => {
    const { store, conversations } = await open();
    for (let i = 0; i < 20; i++) {
      const c = conversations.create({
        agentId: "agent",
        workspaceId: "workspace",
        title: `Question ${i}`,
        channel: "api",
        visitorId: null,
      });
      await conversations.save(c);
      await conversations.append(message(c.id, "user", `Question ${i}`));
      await conversations.append(message(c.id, "assistant", `Answer ${i}`));
    }
    expect(conversations.unflushedCount).toBe(40);
    await conversations.flush();
    expect(conversations.unflushedCount).toBe(0);
    expect(await store.messages.table.countRows()).toBe(40);
  }, 60_000);

  it("keeps a message rated after journaling pending until its rating is stored", async () => {
    const { store, conversations } = await open();
    const c = conversations.create({
      agentId: "agent",
      workspaceId: "workspace",
      title: "Hours",
      channel: "api",
      visitorId: null,
    });
    await conversations.save(c);
    const answer = message(c.id, "assistant", "Nine to five.");
    await conversations.append(answer);
    const rated = await conversations.setFeedback(answer, "up", "thanks");
    await conversations.flush();
    expect(conversations.unflushedCount).toBe(0);
    const stored = await store.messages.table.query().select(["data"]).toArray();
    expect(stored.map((r) => (JSON.parse(String(r.data)) as MessageRecord).feedback)).toEqual(["up"]);
    expect(await conversations.findMessage("agent", rated.id)).toMatchObject({ feedback: "up" });
  }, 60_000);
});
