import OpenAI from "openai";

/**
 * The OpenAI SDK's client for an OpenAI-compatible server, as every caller here uses it: no SDK
 * retries (callers retry knowing what they send; the SDK would also retry a stream that stalls after
 * its headers, and could not tell), and a placeholder key for servers that take none (Ollama, vLLM),
 * since the SDK refuses to start without one.
 */
export function createOpenAIClient(options: { baseURL: string; apiKey: string; timeoutMs: number }): OpenAI {
  return new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey || "not-needed",
    maxRetries: 0,
    timeout: options.timeoutMs,
  });
}
