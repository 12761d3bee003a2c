import { paginate } from "../http/pagination.ts";
import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import * as api from "./conversations-api.ts";
import { toConversation, toMessage } from "./conversations-service.ts";

/** An agent's stored conversations. */
export function conversationsRoutes({
  access,
  conversations,
  config,
}: Pick<Services, "access" | "conversations" | "config">) {
  return [
    endpoint(api.listConversations, (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      const query = input.query();
      return c.json(
        paginate(c, conversations.listForAgent(agent.id).map(toConversation), query, config.trustProxy),
      );
    }),
    endpoint(api.getConversation, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      const conversation = conversations.get(agent.id, input.id("conversationId"));
      const messages = (await conversations.messages(conversation.id)).map(toMessage);
      return c.json({ ...toConversation(conversation), messages });
    }),
    endpoint(api.deleteConversation, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "write");
      await conversations.remove(conversations.get(agent.id, input.id("conversationId")));
      return c.body(null, 204);
    }),
  ];
}
