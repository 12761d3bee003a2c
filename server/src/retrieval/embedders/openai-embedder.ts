import OpenAI from "openai";
import { AppError } from "../../errors.ts";
import {
  classifyUpstreamError,
  isRetryable,
  retryDelayMs,
  sleep,
  toUpstreamError,
} from "../../generation/upstream.ts";
import type { Embedder } from "../embedder.ts";

export interface OpenAIEmbedderOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  /** Texts per request. */
  batchSize?: number;
  /** Extra attempts per batch on 429, 5xx and connection failures. */
  maxRetries?: number;
  /** Vector length when known; otherwise discovered from the first response (0 until then). */
  dimensions?: number;
  timeoutMs?: number;
  /** Longest wait between attempts, Retry-After included. */
  maxRetryDelayMs?: number;
}

/** An Embedder over any OpenAI-compatible `/embeddings` endpoint: batched, retried with backoff, honouring Retry-After. */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const maxRetries = options.maxRetries ?? 4;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey || "not-needed",
    maxRetries: 0,
    timeout: options.timeoutMs ?? 60_000,
  });
  const what = `The embedding endpoint (${options.model})`;
  let dimensions = options.dimensions ?? 0;

  async function embedBatch(batch: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await client.embeddings.create(
          // Some servers reject empty strings; a space embeds as "nothing" everywhere.
          {
            model: options.model,
            input: batch.map((t) => (t.length > 0 ? t : " ")),
            encoding_format: "float",
          },
          { signal },
        );
        const vectors = [...response.data]
          .sort((a, b) => a.index - b.index)
          .map((d) => Float32Array.from(d.embedding));
        if (vectors.length !== batch.length) {
          throw new AppError(
            "upstream_error",
            `${what} returned ${vectors.length} vectors for ${batch.length} texts`,
          );
        }
        for (const vector of vectors) {
          if (dimensions === 0) dimensions = vector.length;
          if (vector.length !== dimensions) {
            throw new AppError(
              "upstream_error",
              `${what} returned ${vector.length} dimensions, expected ${dimensions}`,
            );
          }
        }
        return vectors;
      } catch (error) {
        if (error instanceof AppError) throw error;
        if (signal?.aborted)
          throw new AppError("upstream_error", `${what} request was cancelled`, { reason: "aborted" });
        const failure = classifyUpstreamError(error, null);
        if (attempt >= maxRetries || !isRetryable(failure)) throw toUpstreamError(failure, what);
        await sleep(retryDelayMs(failure, attempt, maxRetryDelayMs), signal);
      }
    }
  }

  return {
    name: `openai:${options.model}`,
    get dimensions() {
      return dimensions;
    },
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        out.push(...(await embedBatch(texts.slice(i, i + batchSize), signal)));
      }
      return out;
    },
  };
}
