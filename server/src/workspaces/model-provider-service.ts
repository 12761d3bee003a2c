import type {
  ModelProvider,
  ProviderModels,
  TestModelResponse,
  UpdateModelProviderRequest,
} from "@lore/shared";
import OpenAI, { APIConnectionError, APIError } from "openai";
import type { Config } from "../config.ts";
import { maskSecret, type SecretBox } from "../crypto/secret-box.ts";
import { AppError, notFound } from "../errors.ts";
import { assertPublicUrl, OutboundError } from "../net/outbound.ts";
import { outboundAdvice } from "../net/outbound-advice.ts";
import type { ModelProviderRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

const OPENAI_BASE_URL = "https://api.openai.com/v1";
const CALL_TIMEOUT_MS = 20_000;
const MAX_LISTED = 200;
// Model servers list every model they hold; these kinds cannot answer a chat.
const NOT_CHAT = /embed|rerank|whisper|tts|dall-e|moderation|transcribe/i;

/** Where a workspace's `openai:<model>` agents are answered: its URL, key, and a version for caches. */
export interface ProviderConnection {
  baseURL: string;
  apiKey: string;
  /** Changes whenever the connection does (a cached model client is then built again). */
  version: string;
}

/**
 * A workspace's model server, set in the console: OpenAI or any OpenAI-compatible URL, its key sealed
 * with the server's SecretBox. `LORE_OPENAI_BASE_URL` wins: with it set, every workspace uses it.
 */
export class ModelProviderService {
  constructor(
    private readonly store: Store,
    private readonly secrets: SecretBox,
    private readonly config: Pick<Config, "openai" | "outboundAllowlist">,
  ) {}

  get(workspaceId: string): ModelProvider {
    const stored = this.record(workspaceId);
    return {
      kind: stored?.kind ?? "none",
      baseUrl: stored?.baseUrl ?? null,
      apiKey: stored?.apiKey ? maskSecret(this.secrets.open(stored.apiKey)) : null,
      environment: Boolean(this.config.openai.baseUrl),
      updatedAt: stored?.updatedAt ?? null,
    };
  }

  /** Stores the provider; a compatible URL must be public unless `LORE_OUTBOUND_ALLOWLIST` lets it in. */
  async set(workspaceId: string, input: UpdateModelProviderRequest): Promise<ModelProvider> {
    const workspace = this.store.workspaces.get(workspaceId);
    if (!workspace) throw notFound("workspace", workspaceId);
    const previous = workspace.modelProvider;
    let modelProvider: ModelProviderRecord | undefined;
    if (input.kind !== "none") {
      const baseUrl = input.kind === "openai" ? OPENAI_BASE_URL : await this.checkUrl(input.baseUrl ?? "");
      const key = input.apiKey === undefined ? (previous?.apiKey ?? null) : input.apiKey;
      modelProvider = {
        kind: input.kind,
        baseUrl,
        apiKey: key ? (input.apiKey === undefined ? key : this.secrets.seal(key)) : null,
        updatedAt: new Date().toISOString(),
      };
    }
    await this.store.workspaces.put({ ...workspace, modelProvider });
    return this.get(workspaceId);
  }

  /** The server that answers this workspace's `openai:` models: the environment's, else its own, else none. */
  connection(workspaceId: string): ProviderConnection | null {
    const { openai } = this.config;
    if (openai.baseUrl) return { baseURL: openai.baseUrl, apiKey: openai.apiKey, version: "environment" };
    const stored = this.record(workspaceId);
    if (!stored) return null;
    return {
      baseURL: stored.baseUrl,
      apiKey: stored.apiKey ? this.secrets.open(stored.apiKey) : "",
      version: `${workspaceId}@${stored.updatedAt}`,
    };
  }

  /** The provider's chat models now; its own error (a wrong key, an unknown URL) in the message. */
  async listModels(workspaceId: string): Promise<ProviderModels> {
    const client = this.client(workspaceId);
    try {
      const page = await client.models.list();
      const models = page.data
        .map((m) => m.id)
        .filter((id) => !NOT_CHAT.test(id))
        .sort()
        .slice(0, MAX_LISTED);
      return { models };
    } catch (error) {
      throw providerError(error);
    }
  }

  /** Sends one question straight to the model (no sources, nothing stored) and returns its answer. */
  async test(workspaceId: string, model: string, question: string): Promise<TestModelResponse> {
    const client = this.client(workspaceId);
    const name = model.replace(/^openai:/, "");
    const started = Date.now();
    try {
      const completion = await client.chat.completions.create({
        model: name,
        messages: [{ role: "user", content: question }],
        max_tokens: 200,
      });
      const answer = completion.choices[0]?.message.content?.trim() ?? "";
      return { model: `openai:${name}`, answer, latencyMs: Date.now() - started };
    } catch (error) {
      throw providerError(error);
    }
  }

  private record(workspaceId: string): ModelProviderRecord | undefined {
    return this.store.workspaces.get(workspaceId)?.modelProvider;
  }

  private client(workspaceId: string): OpenAI {
    const connection = this.connection(workspaceId);
    if (!connection)
      throw new AppError("validation_error", "Connect a model server first", {
        fields: { kind: ["no model server is set for this workspace"] },
      });
    return new OpenAI({
      baseURL: connection.baseURL,
      apiKey: connection.apiKey || "not-needed",
      maxRetries: 0,
      timeout: CALL_TIMEOUT_MS,
    });
  }

  private async checkUrl(url: string): Promise<string> {
    try {
      return (await assertPublicUrl(url, this.config.outboundAllowlist)).href.replace(/\/$/, "");
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      const advice = outboundAdvice(error);
      throw new AppError("validation_error", `The model server URL is not allowed: ${advice}`, {
        fields: { baseUrl: [advice] },
      });
    }
  }
}

/** A 502 that says what the model server said (its status and message), or that it did not answer. */
function providerError(error: unknown): AppError {
  if (error instanceof APIConnectionError)
    return new AppError("upstream_error", `The model server did not answer: ${error.message}`, {
      reason: "unreachable",
    });
  if (error instanceof APIError && typeof error.status === "number")
    return new AppError("upstream_error", `The model server answered ${error.message}`, {
      reason: "status",
      status: error.status,
    });
  return new AppError("upstream_error", "The model server's answer could not be read", { reason: "broken" });
}
