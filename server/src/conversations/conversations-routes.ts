import { paginate } from "../http/pagination.ts";
import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import * as api from "./conversations-api.ts";

/** An agent's stored conversations. */
export function conversationsRoutes({
  access,
  conversations,
  handoffs,
}: Pick<Services, "access" | "conversations" | "handoffs">) {
  return [
    endpoint(api.listConversations, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      const { page, page_size, ...filters } = input.query();
      const list = await conversations.listFiltered(agent.id, filters, handoffs.countsFor(agent.id));
      return c.json(paginate(c, list, { page, page_size }));
    }),
    endpoint(api.getConversation, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      const conversation = await conversations.load(agent.id, input.id("conversationId"));
      return c.json(await conversations.transcript(conversation, handoffs.forConversation(conversation.id)));
    }),
    endpoint(api.updateConversation, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "write");
      const found = await conversations.load(agent.id, input.id("conversationId"));
      const { status } = await input.json();
      const updated = await conversations.setStatus(found, status);
      const detail = await conversations.transcript(updated, handoffs.forConversation(updated.id));
      const { messages: _m, handoffRequests: _h, ...row } = detail;
      return c.json(row);
    }),
    endpoint(api.deleteConversation, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "write");
      const conversation = await conversations.load(agent.id, input.id("conversationId"));
      await conversations.remove(conversation);
      await handoffs.removeForConversations([conversation.id]);
      return c.body(null, 204);
    }),
  ];
}
