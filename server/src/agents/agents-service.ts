import { randomBytes, randomUUID } from "node:crypto";
import {
  type Agent,
  type AnswerPolicy,
  type CreateAgentRequest,
  type HandoffSetting,
  normaliseOrigin,
  type Theme,
  type UpdateAgentRequest,
} from "@lore/shared";
import { AppError, notFound } from "../errors.ts";
import type { AgentRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

export const defaultTheme: Theme = {
  primaryColor: "#2563eb",
  position: "bottom-right",
  title: "Ask us anything",
  avatarUrl: null,
  colorScheme: "auto",
  radius: 12,
  zIndex: 2147483000,
  launcherLabel: "",
  greeting: "",
};

const NO_HANDOFF: HandoffSetting = Object.freeze({ mode: "none", url: null });

/** An agent's handoff setting (agents stored before it existed have none). */
export function handoffOf(agent: Pick<AgentRecord, "handoff">): HandoffSetting {
  return agent.handoff ?? NO_HANDOFF;
}

export const DEFAULT_FALLBACK =
  "I couldn't find that in the knowledge base. Try rephrasing, or ask about something the documents cover.";

export const DEFAULT_ANSWER_POLICY = "balanced" satisfies AnswerPolicy;

export class AgentsService {
  // The public JSON of each record per status: records are replaced on every change, never mutated.
  private readonly json = new WeakMap<AgentRecord, { processing?: string; ready?: string }>();

  constructor(
    private readonly store: Store,
    private readonly defaults: {
      model: string;
      /** An embedding model is configured: semantic and hybrid run as set, else as keyword. */
      semanticSearch: boolean;
    },
  ) {}

  /** Public shape: the stored agent plus its derived status. */
  toAgent(record: AgentRecord, status = this.statusOf(record)): Agent {
    // Agents stored before the language setting existed read as "detect"; theme fields added
    // since read as their defaults. Agents stored before answer policies (or handoffs) existed
    // read as "balanced" (and none).
    return {
      ...record,
      language: record.language ?? null,
      answerPolicy: record.answerPolicy ?? DEFAULT_ANSWER_POLICY,
      handoff: handoffOf(record),
      theme: themeOf(record),
      effectiveRetrievalMode: this.defaults.semanticSearch ? record.retrieval.mode : "keyword",
      status,
    };
  }

  /** `JSON.stringify(toAgent(record))`, once per record and status: lists send the same agents again and again. */
  toAgentJson(record: AgentRecord): string {
    const status = this.statusOf(record);
    let cached = this.json.get(record);
    if (!cached) {
      cached = {};
      this.json.set(record, cached);
    }
    const json = cached[status] ?? JSON.stringify(this.toAgent(record, status));
    cached[status] = json;
    return json;
  }

  private statusOf(record: AgentRecord): Agent["status"] {
    return this.isProcessing(record) ? "processing" : "ready";
  }

  /** Processing while an attached, live source has never been ready. */
  isProcessing(record: AgentRecord): boolean {
    return record.dataSourceIds.some((id) => {
      const source = this.store.dataSources.get(id);
      return source !== undefined && source.deletedAt === null && !source.everReady;
    });
  }

  listForWorkspaces(workspaceIds: Set<string>): AgentRecord[] {
    return this.store.agents
      .filter((a) => workspaceIds.has(a.workspaceId))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  }

  byId(id: string): AgentRecord | undefined {
    return this.store.agents.get(id);
  }

  byWidgetId(widgetId: string): AgentRecord | undefined {
    return this.store.agents.find((a) => a.widgetId === widgetId);
  }

  async create(workspaceId: string, input: CreateAgentRequest): Promise<AgentRecord> {
    this.checkDataSources(workspaceId, input.dataSourceIds ?? []);
    const now = new Date().toISOString();
    const record: AgentRecord = {
      id: randomUUID(),
      workspaceId,
      name: input.name,
      description: input.description ?? "",
      instructions:
        input.instructions ?? "Answer the visitor's question briefly and accurately from the sources.",
      model: input.model ?? this.defaults.model,
      temperature: input.temperature ?? 0.2,
      maxTokens: input.maxTokens ?? 800,
      retrieval: { topK: 5, mode: "hybrid", minScore: 0, ...input.retrieval },
      welcomeMessage: input.welcomeMessage ?? "Hi! Ask me anything about our documentation.",
      suggestedQuestions: input.suggestedQuestions ?? [],
      fallbackMessage: input.fallbackMessage ?? DEFAULT_FALLBACK,
      handoff: input.handoff ?? NO_HANDOFF,
      answerPolicy: input.answerPolicy ?? DEFAULT_ANSWER_POLICY,
      language: input.language ?? null,
      dataSourceIds: dedupe(input.dataSourceIds ?? []),
      widgetId: `wgt_${randomBytes(12).toString("base64url")}`,
      allowedOrigins: dedupe((input.allowedOrigins ?? []).map(storedOrigin)),
      theme: { ...defaultTheme, ...input.theme },
      createdAt: now,
      updatedAt: now,
    };
    return this.store.agents.put(record);
  }

  async update(agent: AgentRecord, patch: UpdateAgentRequest): Promise<AgentRecord> {
    if (patch.dataSourceIds) this.checkDataSources(agent.workspaceId, patch.dataSourceIds);
    return this.store.agents.transact(() => {
      const current = this.store.agents.get(agent.id);
      if (!current) throw notFound("agent", agent.id);
      const next: AgentRecord = {
        ...current,
        ...stripUndefined(patch),
        retrieval: { ...current.retrieval, ...patch.retrieval },
        theme: { ...current.theme, ...patch.theme },
        dataSourceIds: patch.dataSourceIds ? dedupe(patch.dataSourceIds) : current.dataSourceIds,
        allowedOrigins: patch.allowedOrigins
          ? dedupe(patch.allowedOrigins.map(storedOrigin))
          : current.allowedOrigins,
        updatedAt: new Date().toISOString(),
      };
      return { rows: [next], result: next };
    });
  }

  /**
   * An API key may narrow its agent's reach but never widen it: every data source and origin in
   * the patch must already be attached (removing is allowed).
   */
  checkKeyPatch(agent: AgentRecord, patch: UpdateAgentRequest): void {
    const addedSources = (patch.dataSourceIds ?? []).filter((id) => !agent.dataSourceIds.includes(id));
    const origins = new Set(agent.allowedOrigins);
    const addedOrigins = origins.has("*")
      ? []
      : (patch.allowedOrigins ?? []).map(storedOrigin).filter((o) => !origins.has(o));
    if (addedSources.length === 0 && addedOrigins.length === 0) return;
    throw new AppError("permission_denied", "An API key cannot add data sources or origins to its agent", {
      ...(addedSources.length > 0 && { dataSourceIds: addedSources }),
      ...(addedOrigins.length > 0 && { allowedOrigins: addedOrigins }),
    });
  }

  async remove(agent: AgentRecord): Promise<void> {
    const keys = this.store.apiKeys.filter((k) => k.agentId === agent.id).map((k) => k.id);
    await this.store.apiKeys.delete(keys);
    await this.store.agents.delete([agent.id]);
  }

  /** Detaches a deleted source from every agent of its workspace. */
  async detachDataSource(workspaceId: string, dataSourceId: string): Promise<void> {
    const affected = this.store.agents.filter(
      (a) => a.workspaceId === workspaceId && a.dataSourceIds.includes(dataSourceId),
    );
    await this.store.agents.putMany(
      affected.map((a) => ({ ...a, dataSourceIds: a.dataSourceIds.filter((id) => id !== dataSourceId) })),
    );
  }

  private checkDataSources(workspaceId: string, ids: string[]): void {
    const bad = ids.filter((id) => {
      const source = this.store.dataSources.get(id);
      return !source || source.workspaceId !== workspaceId || source.deletedAt !== null;
    });
    if (bad.length > 0) {
      throw new AppError("validation_error", "Unknown data sources for this workspace", {
        fields: { dataSourceIds: bad.map((id) => `unknown data source ${id}`) },
      });
    }
  }
}

function dedupe<T>(items: T[]): T[] {
  return [...new Set(items)];
}

/** The agent's theme with the fields added after it was stored filled in. */
export function themeOf(record: AgentRecord): Theme {
  return { ...defaultTheme, ...record.theme };
}

/** The stored form of a validated allowed-origins entry (the schema already refused non-origins). */
function storedOrigin(input: string): string {
  return normaliseOrigin(input) ?? input;
}

function stripUndefined<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}
