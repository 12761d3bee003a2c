import { AppError } from "../errors.ts";
import { paginate } from "../http/pagination.ts";
import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import * as api from "./corrections-api.ts";
import { toCorrection } from "./corrections-service.ts";

/** Distinct recent visitor questions a correction's examples are drawn from. */
const RECENT_QUESTIONS = 500;

/** An agent's corrections: question/answer pairs it answers from before searching its sources. */
export function correctionsRoutes({
  access,
  corrections,
  conversations,
}: Pick<Services, "access" | "corrections" | "conversations">) {
  return [
    endpoint(api.correctMessage, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "write");
      const body = await input.json();
      const message = await conversations.findMessage(agent.id, input.id("messageId"));
      if (message.role !== "assistant") {
        throw new AppError("validation_error", "Only answers can be corrected", {
          fields: { messageId: ["not an answer"] },
        });
      }
      const question = body.question ?? (await conversations.questionOf(message));
      const created = await corrections.create(agent, {
        question,
        answer: body.answer,
        alsoAnswers: body.alsoAnswers,
        messageId: message.id,
        citations: message.sources,
      });
      // The correction answers the conversation's problem: it leaves the review queue.
      const conversation = conversations.get(agent.id, message.conversationId);
      await conversations.setStatus(conversation, "resolved");
      return c.json(created, 201);
    }),
    endpoint(api.createCorrection, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "write");
      return c.json(await corrections.create(agent, await input.json()), 201);
    }),
    endpoint(api.listCorrections, (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      return c.json(paginate(c, corrections.list(agent.id), input.query()));
    }),
    endpoint(api.getCorrection, (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      return c.json(toCorrection(corrections.get(agent.id, input.id("correctionId"))));
    }),
    endpoint(api.correctionMatches, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      const found = corrections.get(agent.id, input.id("correctionId"));
      const { limit } = input.query();
      const questions = await conversations.recentQuestions(agent.id, RECENT_QUESTIONS);
      const examples = await corrections.examples(found, questions, limit, c.req.raw.signal);
      return c.json({ correctionId: found.id, scanned: questions.length, ...examples });
    }),
    endpoint(api.updateCorrection, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "write");
      const found = corrections.get(agent.id, input.id("correctionId"));
      return c.json(await corrections.update(found, await input.json()));
    }),
    endpoint(api.deleteCorrection, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "write");
      await corrections.remove(corrections.get(agent.id, input.id("correctionId")));
      return c.body(null, 204);
    }),
  ];
}
