import type { ChatCompletionMessage, OpenAIContentPart, ResponseInputItem } from "@lore/shared";
import { AppError } from "../errors.ts";
import type { ChatMessage } from "../generation/types.ts";

/** The 10 turns before the question are the history, as on the query route. */
const HISTORY_TURNS = 10;
const TEXT_PARTS = new Set(["text", "input_text", "output_text"]);

/** A question and the conversation before it, read from OpenAI messages. */
export interface OpenAiConversation {
  question: string;
  history: ChatMessage[];
}

/** Text parts joined; any other part is refused with 400 naming it (`messages.0.content.1`). */
export function contentText(content: string | OpenAIContentPart[] | null | undefined, at: string): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .map((part, i) => {
      if (!TEXT_PARTS.has(part.type) || typeof part.text !== "string") {
        const where = `${at}.${i}`;
        throw new AppError(
          "validation_error",
          `${where}: content parts of type '${part.type}' are not supported; Lore answers text only`,
          { fields: { [where]: [`unsupported content part type: ${part.type}`] } },
        );
      }
      return part.text;
    })
    .join("");
}

/** Tool calls and results stay in the conversation as text: Lore never runs a tool. */
function toolCallsText(calls: ReadonlyArray<{ function?: { name: string; arguments?: string } }>): string {
  return calls
    .map((call) => `[called ${call.function?.name ?? "a tool"}(${call.function?.arguments ?? ""})]`)
    .join("\n");
}

/** One chat message as Lore's history, or null for system/developer messages (the agent's instructions rule). */
function chatTurn(message: ChatCompletionMessage, where: string): ChatMessage | null {
  const at = `${where}.content`;
  switch (message.role) {
    case "system":
    case "developer":
      contentText(message.content, at); // still refused if it carries an image
      return null;
    case "user":
      return { role: "user", content: contentText(message.content, at) };
    case "assistant": {
      const text = contentText(message.content, at);
      const calls = message.tool_calls?.length ? toolCallsText(message.tool_calls) : "";
      return { role: "assistant", content: [text, calls].filter(Boolean).join("\n") };
    }
    case "tool":
      return { role: "assistant", content: `[tool result] ${contentText(message.content, at)}` };
    default:
      return message satisfies never;
  }
}

/** The question (the last message, a non-empty user message) and up to 10 turns before it. */
function splitConversation(turns: Array<ChatMessage | null>, field: string): OpenAiConversation {
  const kept = turns.filter((t): t is ChatMessage => t !== null && t.content.trim() !== "");
  const last = turns.at(-1);
  if (last?.role !== "user" || last.content.trim() === "") {
    throw new AppError("validation_error", "The last message must be a non-empty user message", {
      fields: { [field]: ["last message must be from the user"] },
    });
  }
  return { question: last.content, history: kept.slice(0, -1).slice(-HISTORY_TURNS) };
}

/** Chat completion messages as a question and its history. */
export function readChatMessages(messages: ChatCompletionMessage[]): OpenAiConversation {
  return splitConversation(
    messages.map((m, i) => chatTurn(m, `messages.${i}`)),
    "messages",
  );
}

/** A response's `input` (a string, or message and function call items) as a question and its history. */
export function readResponseInput(input: string | ResponseInputItem[]): OpenAiConversation {
  if (typeof input === "string") return splitConversation([{ role: "user", content: input }], "input");
  const turns = input.map((item, i): ChatMessage | null => {
    const at = `input.${i}`;
    if (item.type === "function_call")
      return { role: "assistant", content: `[called ${item.name}(${item.arguments ?? ""})]` };
    if (item.type === "function_call_output")
      return { role: "assistant", content: `[tool result] ${contentText(item.output, `${at}.output`)}` };
    return chatTurn({ role: item.role, content: item.content }, at);
  });
  return splitConversation(turns, "input");
}
