import OpenAI from "openai";
import { detectLanguage } from "../text/language.ts";
import { countTokens } from "../text/tokens.ts";
import { condenseHeuristically } from "./condense.ts";
import { buildMessages } from "./prompt.ts";
import type { ChatMessage, ChatModel, GenerateInput, GenerationEvent } from "./types.ts";
import { classifyUpstreamError, isRetryable, retryDelayMs, sleep, toUpstreamError } from "./upstream.ts";

export interface OpenAIChatModelOptions {
  /** Any OpenAI-compatible base URL including `/v1` (OpenAI, Ollama, vLLM, llama.cpp, LM Studio). */
  baseURL: string;
  apiKey: string;
  model: string;
  /** Whole answer deadline, retries included. */
  timeoutMs?: number;
  /** Deadline for the first content token of each attempt. */
  firstTokenTimeoutMs?: number;
  /** Extra attempts, only before the first token was streamed. */
  maxRetries?: number;
  /** Deadline of the condense call; past it the heuristic rewrite is used. */
  condenseTimeoutMs?: number;
}

const CONDENSE_PROMPT =
  "Rewrite the user's last question as one standalone question that can be understood without the conversation. " +
  "Resolve pronouns and references from the conversation. Do not answer it. Reply with the question only.";

/** The condense step for a question in another language than the sources': the question in both. */
const acrossPrompt = (language: string) =>
  "Rewrite the user's last question as one standalone question that can be understood without the conversation, " +
  `in the user's language, and write the same standalone question in ${language}. ` +
  "Resolve pronouns and references from the conversation. Do not answer it. Reply with exactly two lines:\n" +
  `Question: <the standalone question>\n${language}: <the same question in ${language}>`;

/** A chat model behind any OpenAI-compatible endpoint, streamed; every failure is an `upstream_error` (502), never a hang. */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): ChatModel {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const firstTokenTimeoutMs = Math.min(options.firstTokenTimeoutMs ?? 20_000, timeoutMs);
  const maxRetries = options.maxRetries ?? 2;
  const condenseTimeoutMs = options.condenseTimeoutMs ?? 8_000;
  // Retries are ours: the SDK's would also retry a stream that stalls after its headers, and could not tell.
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey || "not-needed",
    maxRetries: 0,
    timeout: timeoutMs,
  });
  const what = `The model endpoint (${options.model})`;

  return {
    name: `openai:${options.model}`,

    async *generate(input: GenerateInput): AsyncIterable<GenerationEvent> {
      const messages = buildMessages(input);
      const deadline = Date.now() + timeoutMs;
      let answer = "";
      let usage: { promptTokens: number; completionTokens: number } | null = null;

      for (let attempt = 0; ; attempt++) {
        if (input.signal?.aborted) return;
        const controller = new AbortController();
        const abort = () => controller.abort();
        input.signal?.addEventListener("abort", abort, { once: true });
        let timedOut: "first_token" | "total" | null = null;
        const remaining = Math.max(1, deadline - Date.now());
        const totalTimer = setTimeout(() => {
          timedOut = "total";
          controller.abort();
        }, remaining);
        const firstTokenTimer = setTimeout(
          () => {
            timedOut = "first_token";
            controller.abort();
          },
          Math.min(firstTokenTimeoutMs, remaining),
        );
        let started = false;
        try {
          const stream = await client.chat.completions.create(
            {
              model: options.model,
              messages,
              stream: true,
              stream_options: { include_usage: true },
              temperature: input.temperature,
              max_tokens: input.maxTokens,
            },
            { signal: controller.signal, timeout: remaining },
          );
          let finished = false;
          for await (const chunk of stream) {
            if (chunk.choices[0]?.finish_reason) finished = true;
            const token = chunk.choices[0]?.delta?.content;
            if (token) {
              if (!started) {
                started = true;
                clearTimeout(firstTokenTimer);
              }
              answer += token;
              yield { type: "token", token };
            }
            if (chunk.usage) {
              usage = {
                promptTokens: chunk.usage.prompt_tokens,
                completionTokens: chunk.usage.completion_tokens,
              };
            }
          }
          // The SDK ends an aborted stream quietly; a deadline or the caller's abort must not pass for a finished answer.
          if (controller.signal.aborted) throw new Error("stream aborted");
          // A stream cut without a finish reason is a truncated answer, not a short one.
          if (!finished) throw new TruncatedStreamError();
          break;
        } catch (error) {
          // The caller went away: stop quietly, the partial answer is theirs to keep.
          if (input.signal?.aborted) return;
          const failure = classifyUpstreamError(error, timedOut);
          const budgetLeft = deadline - Date.now();
          if (!started && attempt < maxRetries && isRetryable(failure)) {
            const delay = retryDelayMs(failure, attempt, 10_000);
            if (delay < budgetLeft) {
              await sleep(delay, input.signal);
              continue;
            }
          }
          throw toUpstreamError(failure, what);
        } finally {
          clearTimeout(totalTimer);
          clearTimeout(firstTokenTimer);
          input.signal?.removeEventListener("abort", abort);
          // Also runs when the consumer stops iterating: the upstream request is cancelled with it.
          controller.abort();
        }
      }

      yield {
        type: "usage",
        ...(usage ?? { promptTokens: countMessageTokens(messages), completionTokens: countTokens(answer) }),
      };
    },

    async condense(question: string, history: ChatMessage[], signal?: AbortSignal): Promise<string> {
      const trimmed = question.trim();
      const transcript = transcriptOf(history);
      if (transcript === null) return trimmed;
      const reply = await ask(
        CONDENSE_PROMPT,
        `Conversation:\n${transcript}\n\nLast question: ${trimmed}`,
        signal,
      );
      const rewritten = cleanStandaloneQuestion(reply ?? "");
      if (rewritten.length > 0 && rewritten.length <= trimmed.length * 4 + 300) return rewritten;
      // A follow-up made standalone by the heuristic beats no answer at all.
      return condenseHeuristically(trimmed, history);
    },

    async condenseAcross(question, history, language, signal) {
      const trimmed = question.trim();
      const transcript = transcriptOf(history);
      const reply = await ask(
        acrossPrompt(language),
        transcript === null
          ? `Last question: ${trimmed}`
          : `Conversation:\n${transcript}\n\nLast question: ${trimmed}`,
        signal,
      );
      const line = (label: string) =>
        (reply ?? "")
          .split("\n")
          .map((l) => l.trim())
          .find((l) => l.toLowerCase().startsWith(`${label.toLowerCase()}:`))
          ?.slice(label.length + 1)
          .trim()
          .replace(/^["'“]|["'”]$/g, "")
          .trim() ?? "";
      const fits = (text: string) => text.length > 0 && text.length <= trimmed.length * 4 + 300;
      const rewritten = line("Question");
      const translated = line(language);
      if (!rewritten && !translated) {
        // A model that ignored the two-line format and wrote one question: it is the standalone
        // question, and the search's when it is already in the sources' language. Anything else
        // ("I don't know.") is no question, and the dictionaries translate instead.
        const plain = cleanStandaloneQuestion(reply ?? "");
        if (fits(plain) && /[?？؟]$/.test(plain)) {
          const inSources = language === "English" && detectLanguage(plain) === "en";
          return { standalone: plain, translated: inSources ? plain : null };
        }
      }
      const standalone = fits(rewritten)
        ? rewritten
        : transcript === null
          ? trimmed
          : condenseHeuristically(trimmed, history);
      return { standalone, translated: fits(translated) ? translated : null };
    },
  };

  /** The conversation's last turns as the condense prompt quotes them; null without a question before. */
  function transcriptOf(history: ChatMessage[]): string | null {
    const turns = history.filter((m) => m.role !== "system").slice(-10);
    if (!turns.some((m) => m.role === "user")) return null;
    return turns.map((m) => `${m.role === "user" ? "User" : "Assistant"}: ${m.content}`).join("\n");
  }

  /** One short, unstreamed completion within the condense deadline; null when it fails or times out. */
  async function ask(system: string, user: string, signal?: AbortSignal): Promise<string | null> {
    try {
      const timeout = AbortSignal.timeout(condenseTimeoutMs);
      const response = await client.chat.completions.create(
        {
          model: options.model,
          messages: [
            { role: "system", content: system },
            { role: "user", content: user },
          ],
          temperature: 0,
          max_tokens: 200,
        },
        { signal: signal ? AbortSignal.any([signal, timeout]) : timeout, timeout: condenseTimeoutMs },
      );
      return response.choices[0]?.message?.content ?? null;
    } catch {
      return null;
    }
  }
}

/** The model's stream ended before it said why it stopped (no finish reason, no `[DONE]`). */
class TruncatedStreamError extends Error {
  constructor() {
    super("the stream ended before the answer was finished");
    this.name = "TruncatedStreamError";
  }
}

function cleanStandaloneQuestion(text: string): string {
  const firstLine =
    text
      .trim()
      .split("\n")
      .find((line) => line.trim().length > 0) ?? "";
  return firstLine
    .replace(/^(?:standalone question|question|rewritten question)\s*:\s*/i, "")
    .replace(/^["'“]|["'”]$/g, "")
    .trim();
}

/** Prompt tokens as OpenAI counts chat messages: content plus a few tokens of framing per message. */
export function countMessageTokens(messages: ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + 4 + countTokens(m.content), 3);
}
