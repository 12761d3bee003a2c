import { HEADING_SEPARATOR } from "../sources/chunking/chunk-document.ts";
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

/** A chunk's text without its heading context line ("Setup > Install"), which the source's label already names. */
function passageOf(chunk: GenerateInput["chunks"][number]): string {
  const text = chunk.text.trim();
  const context = `${chunk.headingPath.join(HEADING_SEPARATOR)}\n\n`;
  return chunk.headingPath.length > 0 && text.startsWith(context) ? text.slice(context.length).trim() : text;
}

/**
 * Sources as the prompt lists them: "[1] Title › Heading — text", numbered from 1 in retrieval order.
 * The text keeps its line breaks, so list items, table rows and code reach the model as they were written.
 */
export function formatSources(input: Pick<GenerateInput, "chunks">): string {
  if (input.chunks.length === 0) return "(no sources)";
  return input.chunks
    .map((chunk, i) => {
      const heading = chunk.headingPath.length > 0 ? ` › ${chunk.headingPath.join(" › ")}` : "";
      return `[${i + 1}] ${chunk.title}${heading} — ${passageOf(chunk)}`;
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
