import { messageRecord } from "../answers/prepare-conversation.ts";
import type { MessageRecord } from "../store/records.ts";

/** A stored message for tests: a complete, unrated answer unless `fields` say otherwise. */
export function makeMessage(fields: Partial<MessageRecord> = {}): MessageRecord {
  const agent = { id: "agent", workspaceId: "workspace" };
  return { ...messageRecord(agent, "c1", "assistant", "Nine to five."), ...fields };
}
