import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@lancedb/lancedb";
import { afterEach, describe, expect, it } from "vitest";
import type { ConversationRecord, MessageRecord } from "../store/records.ts";
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

  async function open(
    dir = mkdtempSync(join(tmpdir(), "lore-conversations-")),
  ): Promise<{ store: Store; conversations: ConversationsService }> {
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
    const c = await savedConversation(conversations, "Hours");
    const answer = message(c.id, "assistant", "Nine to five.");
    await conversations.append(answer);
    const rated = await conversations.setFeedback(answer, "up", "thanks");
    await conversations.flush();
    expect(conversations.unflushedCount).toBe(0);
    const stored = await store.messages.table.query().select(["data"]).toArray();
    expect(stored.map((r) => (JSON.parse(String(r.data)) as MessageRecord).feedback)).toEqual(["up"]);
    expect(await conversations.findMessage("agent", rated.id)).toMatchObject({ feedback: "up" });
  }, 60_000);

  /** A new API conversation of agent "agent", saved. */
  async function savedConversation(conversations: ConversationsService, title: string) {
    const c = conversations.create({
      agentId: "agent",
      workspaceId: "workspace",
      title,
      channel: "api",
      visitorId: null,
    });
    await conversations.save(c);
    return c;
  }

  /** What a process killed after journaling and before its flush leaves: the journal file alone. */
  function leaveJournal(dir: string, entries: object[]): void {
    mkdirSync(join(dir, "conversations"), { recursive: true });
    const lines = entries.map((e) => `${JSON.stringify(e)}\n`).join("");
    writeFileSync(join(dir, "conversations", "current.jsonl"), lines);
  }

  function conversationRecord(fields: Partial<ConversationRecord> = {}): ConversationRecord {
    const at = new Date().toISOString();
    return {
      id: crypto.randomUUID(),
      agentId: "agent",
      workspaceId: "workspace",
      title: "Opening hours",
      messageCount: 1,
      channel: "api",
      visitorId: null,
      createdAt: at,
      updatedAt: at,
      ...fields,
    };
  }

  it("lists and reads a conversation journaled by a process killed before its flush, once started again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-conversations-"));
    const conversation = conversationRecord();
    const answer = message(conversation.id, "assistant", "Nine to five.");
    leaveJournal(join(dir, "journal"), [{ conversation, message: answer, seq: 0 }]);
    const { conversations } = await open(dir);
    expect(conversations.listForAgent("agent").map((c) => c.id)).toEqual([conversation.id]);
    expect(conversations.get("agent", conversation.id).messageCount).toBe(1);
    expect((await conversations.messages(conversation.id)).map((m) => m.content)).toEqual(["Nine to five."]);
  }, 60_000);

  it("shows a dead replica's replayed message in a conversation it had read before", async () => {
    const { conversations } = await open();
    const c = await savedConversation(conversations, "Hours");
    await conversations.append(message(c.id, "user", "When do you open?"));
    await conversations.flush();
    expect(await conversations.messages(c.id)).toHaveLength(1);
    // The next turn, acknowledged by a replica that died before moving it to LanceDB.
    const answer = message(c.id, "assistant", "At nine.");
    const dead = mkdtempSync(join(tmpdir(), "lore-dead-replica-"));
    cleanups.push(async () => rmSync(dead, { recursive: true, force: true }));
    const turn = { ...conversations.get("agent", c.id), messageCount: 2, updatedAt: answer.createdAt };
    leaveJournal(dead, [{ conversation: turn, message: answer, seq: 1 }]);
    await conversations.replayJournal(dead);
    expect(conversations.get("agent", c.id).messageCount).toBe(2);
    expect((await conversations.messages(c.id)).map((m) => m.content)).toEqual([
      "When do you open?",
      "At nine.",
    ]);
  }, 60_000);

  /** The conversation and its messages as LanceDB holds them (a fresh connection: no memory of this process). */
  async function storedState(dir: string, conversationId: string) {
    const db = await connect(join(dir, "lance"));
    const rows = await (await db.openTable("conversations"))
      .query()
      .where(`id = '${conversationId}'`)
      .toArray();
    const messages = await (await db.openTable("messages"))
      .query()
      .where(`conversation_id = '${conversationId}'`)
      .toArray();
    db.close();
    return {
      conversation: JSON.parse(String(rows[0]?.data)) as ConversationRecord,
      messages: messages.map((r) => JSON.parse(String(r.data)) as MessageRecord),
    };
  }

  /**
   * What a user would lose if a replay wrote an old state back: a turn (the count, updatedAt), a
   * status, a rating. `conversations` answers a turn and flushes it; the returned entry is that
   * state as a journal holds it; then the conversation moves on (another turn, a rating, resolved).
   */
  async function moveOn(conversations: ConversationsService) {
    const c = await savedConversation(conversations, "Hours");
    await conversations.append(message(c.id, "user", "When do you open?"));
    const answer = message(c.id, "assistant", "At nine.");
    await conversations.append(answer);
    await conversations.flush();
    const old = { conversation: conversations.get("agent", c.id), message: answer, seq: 1 };
    await conversations.append(message(c.id, "user", "And on Sundays?"));
    await conversations.append(message(c.id, "assistant", "Closed."));
    await conversations.setFeedback(answer, "up", "clear");
    const later = await conversations.setStatus(conversations.get("agent", c.id), "resolved");
    await conversations.flush();
    return { id: c.id, answerId: answer.id, old, later };
  }

  function expectLater(
    state: { conversation: ConversationRecord; messages: MessageRecord[] },
    later: ConversationRecord,
    answerId: string,
  ): void {
    expect(state.conversation).toMatchObject({
      messageCount: 4,
      status: "resolved",
      updatedAt: later.updatedAt,
    });
    expect(state.messages).toHaveLength(4);
    expect(state.messages.find((m) => m.id === answerId)?.feedback).toBe("up");
  }

  it("keeps a conversation's later state when a dead replica's replayed journal holds an older one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-conversations-"));
    const { conversations } = await open(dir);
    const { id, answerId, old, later } = await moveOn(conversations);
    // A replica that had journaled the first turn died before removing its journal; the
    // conversation went on elsewhere (here) before the fleet replayed it.
    const dead = mkdtempSync(join(tmpdir(), "lore-dead-replica-"));
    cleanups.push(async () => rmSync(dead, { recursive: true, force: true }));
    leaveJournal(dead, [old]);
    await conversations.replayJournal(dead);
    expectLater(
      {
        conversation: conversations.get("agent", id),
        messages: await conversations.messages(id),
      },
      later,
      answerId,
    );
    expect(conversations.listForAgent("agent").map((c) => c.status)).toEqual(["resolved"]);
    expectLater(await storedState(dir, id), later, answerId);
  }, 60_000);

  it("keeps a conversation's later state when its own journal, replayed at start, holds an older one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-conversations-"));
    const first = await Store.open(dir, { indexMb: 8, metadataMb: 8 });
    const before = await ConversationsService.open(first);
    const { id, answerId, old, later } = await moveOn(before);
    await before.close();
    await first.close();
    // This replica was killed with the first turn still journaled; another one continued it.
    leaveJournal(join(dir, "journal"), [old]);
    const { conversations } = await open(dir);
    expectLater(
      {
        conversation: conversations.get("agent", id),
        messages: await conversations.messages(id),
      },
      later,
      answerId,
    );
    expectLater(await storedState(dir, id), later, answerId);
  }, 60_000);

  it("counts a dead replica's answer LanceDB never got in a conversation that went on elsewhere", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-conversations-"));
    const { conversations } = await open(dir);
    const { id, old, later } = await moveOn(conversations);
    // The dead replica had answered once more after the first turn, and its flush never landed.
    const unseen = message(id, "assistant", "We open at nine on holidays too.");
    const dead = mkdtempSync(join(tmpdir(), "lore-dead-replica-"));
    cleanups.push(async () => rmSync(dead, { recursive: true, force: true }));
    const turn = {
      ...old.conversation,
      messageCount: old.conversation.messageCount + 1,
      updatedAt: unseen.createdAt,
      revision: (old.conversation.revision ?? 0) + 1,
    };
    leaveJournal(dead, [old, { conversation: turn, message: unseen, seq: 2 }]);
    await conversations.replayJournal(dead);
    for (const state of [
      { conversation: conversations.get("agent", id), messages: await conversations.messages(id) },
      await storedState(dir, id),
    ]) {
      // The later state, with the unseen answer counted and placed after the conversation's own.
      expect(state.conversation).toMatchObject({ messageCount: 5, status: "resolved", title: later.title });
      expect(state.conversation.revision).toBe((later.revision ?? 0) + 1);
      expect(state.messages).toHaveLength(5);
    }
    expect((await conversations.messages(id)).map((m) => m.content)).toEqual([
      "When do you open?",
      "At nine.",
      "And on Sundays?",
      "Closed.",
      "We open at nine on holidays too.",
    ]);
  }, 60_000);

  it("keeps a conversation deleted since deleted when a dead replica's replayed journal holds a turn of it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-conversations-"));
    const { store, conversations } = await open(dir);
    const c = await savedConversation(conversations, "Hours");
    await conversations.append(message(c.id, "user", "When do you open?"));
    await conversations.flush();
    const stored = conversations.get("agent", c.id);
    // The dead replica journaled the next question, then the owner deleted the conversation here.
    const question = message(c.id, "user", "And on Sundays?");
    const turn = {
      ...stored,
      messageCount: 2,
      updatedAt: question.createdAt,
      revision: (stored.revision ?? 0) + 1,
    };
    const rating = { ...message(c.id, "assistant", "At nine."), feedback: "down" as const, revision: 1 };
    await conversations.remove(stored);
    const dead = mkdtempSync(join(tmpdir(), "lore-dead-replica-"));
    cleanups.push(async () => rmSync(dead, { recursive: true, force: true }));
    leaveJournal(dead, [{ conversation: turn, message: question, seq: 1 }, { message: rating }]);
    await conversations.replayJournal(dead);
    expect(conversations.listForAgent("agent")).toEqual([]);
    expect(() => conversations.get("agent", c.id)).toThrow();
    const db = await connect(join(dir, "lance"));
    expect(await (await db.openTable("conversations")).countRows()).toBe(0);
    expect(await (await db.openTable("messages")).countRows(`conversation_id = '${c.id}'`)).toBe(0);
    db.close();
    expect(store.conversations.size).toBe(0);
  }, 60_000);

  it("logs one error naming a damaged data file, and fails only the conversations it held", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-conversations-"));
    const agentId = randomUUID();
    const ids: string[] = [];
    const dataDir = join(dir, "lance", "messages.lance", "data");
    const files = () => new Set(existsSync(dataDir) ? readdirSync(dataDir) : []);
    let damaged = "";
    {
      const store = await Store.open(dir, { indexMb: 8, metadataMb: 8 });
      const conversations = await ConversationsService.open(store);
      for (const title of ["one", "two", "three"]) {
        const before = files();
        const c = conversations.create({ agentId, workspaceId: "w", title, channel: "api", visitorId: null });
        await conversations.save(c);
        await conversations.append(
          makeMessage({ agentId, conversationId: c.id, role: "user", content: title }),
        );
        await conversations.flush();
        ids.push(c.id);
        if (title === "two") damaged = [...files()].find((f) => !before.has(f)) ?? "";
      }
      await conversations.close();
      await store.close();
    }
    writeFileSync(join(dataDir, damaged), "GARBLED".repeat(500));
    const errors: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
    const logger = {
      debug() {},
      info() {},
      warn() {},
      error: (msg: string, fields?: Record<string, unknown>) => errors.push({ msg, fields }),
    };
    const store = await Store.open(dir, { indexMb: 8, metadataMb: 8 });
    const conversations = await ConversationsService.open(store, logger);
    cleanups.push(async () => {
      await conversations.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    expect((await conversations.listFiltered(agentId, {})).map((c) => c.title).sort()).toEqual([
      "one",
      "three",
      "two",
    ]);
    expect((await conversations.messages(ids[0] ?? "")).map((m) => m.content)).toEqual(["one"]);
    await expect(conversations.messages(ids[1] ?? "")).rejects.toMatchObject({
      code: "internal_error",
      details: { reason: "storage_damaged", table: "messages", conversationId: ids[1] },
    });
    expect((await conversations.messages(ids[2] ?? "")).map((m) => m.content)).toEqual(["three"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({ table: "messages", files: [damaged], rows: 1 });
  }, 60_000);
});
