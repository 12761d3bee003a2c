import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { HISTORY_WINDOW } from "../generation/prompt.ts";
import {
  type ConversationRequest,
  messageRecord,
  openConversation,
  prepareConversation,
  resolveSources,
} from "./prepare-conversation.ts";
import { makeAgent, openConversations } from "./test-answers.ts";

const agent = makeAgent();
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

async function setUp() {
  const opened = await openConversations();
  closing.push(opened.close);
  return opened;
}

function request(fields: Partial<ConversationRequest> = {}): ConversationRequest {
  return {
    agent,
    message: "Can I cancel my order?",
    channel: "widget",
    visitorId: "visitor-1",
    callerId: "visitor-1",
    ...fields,
  };
}

describe("prepareConversation", () => {
  it("starts a conversation and stores the user's message while the answer is prepared", async () => {
    const { conversations } = await setUp();
    const asked = request({ pageUrl: "https://shop.example/orders", device: "mobile" });
    const prepared = await prepareConversation(
      { conversations },
      asked,
      await openConversation({ conversations }, asked),
    );
    expect(prepared.newConversation).toBe(true);
    expect(prepared.history).toEqual([]);
    await prepared.userStored;
    const stored = conversations.get(agent.id, prepared.conversation.id);
    expect(stored).toMatchObject({
      title: "Can I cancel my order?",
      channel: "widget",
      visitorId: "visitor-1",
      pageUrl: "https://shop.example/orders",
      device: "mobile",
    });
    expect((await conversations.messages(stored.id)).map((m) => [m.role, m.content])).toEqual([
      ["user", "Can I cancel my order?"],
    ]);
  });

  it("reads the conversation's last turns as history, leaving out empty answers", async () => {
    const { conversations } = await setUp();
    const first = request();
    const started = await prepareConversation(
      { conversations },
      first,
      await openConversation({ conversations }, first),
    );
    await started.userStored;
    const id = started.conversation.id;
    await conversations.append(messageRecord(agent, id, "assistant", ""));
    for (let i = 0; i < HISTORY_WINDOW; i++) {
      await conversations.append(messageRecord(agent, id, i % 2 === 0 ? "assistant" : "user", `turn ${i}`));
    }
    const next = request({ conversationId: id, message: "And after it ships?" });
    const prepared = await prepareConversation(
      { conversations },
      next,
      await openConversation({ conversations }, next),
    );
    expect(prepared.newConversation).toBe(false);
    expect(prepared.history).toHaveLength(HISTORY_WINDOW);
    expect(prepared.history[0]).toEqual({ role: "assistant", content: "turn 0" });
    expect(prepared.history.some((m) => m.content === "")).toBe(false);
  });

  it("reads the caller's own history instead of a stored one", async () => {
    const { conversations } = await setUp();
    const history = [{ role: "user" as const, content: "Hello" }];
    const asked = request({ channel: "openai", visitorId: null, history });
    const prepared = await prepareConversation(
      { conversations },
      asked,
      await openConversation({ conversations }, asked),
    );
    expect(prepared.history).toBe(history);
    expect(prepared.conversation.channel).toBe("api");
  });

  it("stores nothing for a trial run", async () => {
    const { conversations } = await setUp();
    const asked = request({ ephemeral: true });
    const prepared = await prepareConversation(
      { conversations },
      asked,
      await openConversation({ conversations }, asked),
    );
    await prepared.userStored;
    expect(() => conversations.get(agent.id, prepared.conversation.id)).toThrow(AppError);
  });
});

describe("openConversation", () => {
  it("answers another visitor's conversation, or an API key's question into a console one, as not found", async () => {
    const { conversations } = await setUp();
    for (const [owner, intruder] of [
      [request({ visitorId: "visitor-1" }), request({ visitorId: "visitor-2" })],
      [request({ channel: "console", visitorId: null }), request({ channel: "api", visitorId: null })],
    ] as const) {
      const prepared = await prepareConversation(
        { conversations },
        owner,
        await openConversation({ conversations }, owner),
      );
      await prepared.userStored;
      const id = prepared.conversation.id;
      await expect(openConversation({ conversations }, { ...intruder, conversationId: id })).rejects.toThrow(
        expect.objectContaining({ code: "not_found" }),
      );
      expect(
        (await openConversation({ conversations }, { ...owner, conversationId: id })).conversation.id,
      ).toBe(id);
    }
  });
});

describe("resolveSources", () => {
  it("refuses sources that are not attached to the agent", async () => {
    const { store } = await setUp();
    const attached = makeAgent({ dataSourceIds: ["a"] });
    expect(() => resolveSources({ store }, attached, ["a", "b"])).toThrow(
      expect.objectContaining({
        code: "validation_error",
        details: { fields: { dataSourceIds: ["not attached: b"] } },
      }),
    );
  });
});
