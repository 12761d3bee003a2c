import type { ChatMessage, GenerateInput } from "./types.ts";

/** Conversation turns sent to the model (DESIGN: the last 10 messages). */
export const HISTORY_WINDOW = 10;

/** The grounding rules every OpenAI-compatible model gets after the agent's own instructions. */
export function groundingRules(fallbackMessage: string): string {
  return [
    "Answer only from the numbered sources below; never use outside knowledge or invent facts.",
    "Cite every statement with the number of its source in square brackets, like [1] or [2, 3], right after the statement.",
    `If the sources do not contain the answer, reply exactly with: ${fallbackMessage}`,
    "Keep the answer concise.",
  ].join("\n");
}

/** Sources as the prompt lists them: "[1] Title — text", numbered from 1 in retrieval order. */
export function formatSources(input: Pick<GenerateInput, "chunks">): string {
  if (input.chunks.length === 0) return "(no sources)";
  return input.chunks
    .map((chunk, i) => {
      const heading = chunk.headingPath.length > 0 ? ` › ${chunk.headingPath.join(" › ")}` : "";
      return `[${i + 1}] ${chunk.title}${heading} — ${chunk.text.trim()}`;
    })
    .join("\n\n");
}

/** The chat messages for an OpenAI-compatible model: system (instructions, rules, sources), the last turns, the question. */
export function buildMessages(input: GenerateInput): ChatMessage[] {
  const instructions = input.instructions.trim();
  const system = [
    instructions.length > 0
      ? instructions
      : "You are a helpful assistant that answers questions about a knowledge base.",
    "",
    groundingRules(input.fallbackMessage),
    "",
    "Sources:",
    formatSources(input),
  ].join("\n");
  const history = input.history.filter((m) => m.role !== "system").slice(-HISTORY_WINDOW);
  return [{ role: "system", content: system }, ...history, { role: "user", content: input.question }];
}
