import { randomUUID } from "node:crypto";
import type {
  Correction,
  CorrectionMatch as CorrectionExample,
  CreateCorrectionRequest,
  UpdateCorrectionRequest,
} from "@lore/shared";
import type { RecentQuestion } from "../conversations/conversations-service.ts";
import { notFound } from "../errors.ts";
import type { Logger } from "../log/logger.ts";
import type { Embedder } from "../retrieval/embedder.ts";
import type { RecordTable } from "../store/record-table.ts";
import type { AgentRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import {
  type AnalyzedQuestion,
  analyzeQuestion,
  cosine,
  isSemantic,
  lexicalSimilarity,
  sameQuestion,
  sharesTerms,
} from "./match-correction.ts";

/** A correction as stored: its agent's workspace kept for isolation checks. */
export interface CorrectionRecord extends Correction {
  workspaceId: string;
}

/** A correction that answers a question, and how closely it matched (0..1). */
export interface CorrectionMatch {
  correction: Correction;
  score: number;
}

/** What the answer path needs: the agent's correction for a question, if one means the same. */
export interface CorrectionFinder {
  find(agent: AgentRecord, question: string, signal: AbortSignal): Promise<CorrectionMatch | null>;
}

export const noCorrections: CorrectionFinder = { find: async () => null };

export function toCorrection(r: CorrectionRecord): Correction {
  const { workspaceId: _w, ...correction } = r;
  return correction;
}

/** A question as matching sees it, remembered per correction version. */
interface Prepared {
  version: string;
  analyzed: AnalyzedQuestion;
  vector?: Float32Array;
}

/**
 * Question/answer pairs the owner wrote for an agent (the `corrections` table), and matching a
 * visitor's question against them before retrieval (see match-correction.ts for when two
 * questions count as the same).
 */
export class CorrectionsService implements CorrectionFinder {
  private readonly prepared = new Map<string, Prepared>();

  private constructor(
    private readonly table: RecordTable<CorrectionRecord>,
    private readonly embedder: Embedder | null,
    private readonly logger: Logger | null,
  ) {}

  static async open(
    store: Store,
    options: { embedder?: Embedder | null; logger?: Logger } = {},
  ): Promise<CorrectionsService> {
    const table = await store.openRecords<CorrectionRecord>("corrections");
    return new CorrectionsService(table, options.embedder ?? null, options.logger ?? null);
  }

  /** An agent's corrections, newest first. */
  list(agentId: string): Correction[] {
    return this.forAgent(agentId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .map(toCorrection);
  }

  get(agentId: string, id: string): CorrectionRecord {
    const found = this.table.get(id);
    if (!found || found.agentId !== agentId) throw notFound("correction", id);
    return found;
  }

  async create(
    agent: AgentRecord,
    body: CreateCorrectionRequest & { messageId?: string | null },
  ): Promise<Correction> {
    const now = new Date().toISOString();
    const record: CorrectionRecord = {
      id: randomUUID(),
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      question: body.question.trim(),
      answer: body.answer.trim(),
      messageId: body.messageId ?? null,
      createdAt: now,
      updatedAt: now,
    };
    return toCorrection(await this.table.put(record));
  }

  async update(record: CorrectionRecord, body: UpdateCorrectionRequest): Promise<Correction> {
    const updated: CorrectionRecord = {
      ...record,
      question: body.question?.trim() ?? record.question,
      answer: body.answer?.trim() ?? record.answer,
      updatedAt: new Date().toISOString(),
    };
    return toCorrection(await this.table.put(updated));
  }

  async remove(record: CorrectionRecord): Promise<void> {
    await this.table.delete([record.id]);
    this.prepared.delete(record.id);
  }

  async removeForAgent(agentId: string): Promise<void> {
    const ids = this.forAgent(agentId).map((c) => c.id);
    await this.table.delete(ids);
    for (const id of ids) this.prepared.delete(id);
  }

  async find(agent: AgentRecord, question: string, signal: AbortSignal): Promise<CorrectionMatch | null> {
    const corrections = this.forAgent(agent.id);
    if (corrections.length === 0) return null;
    const asked = analyzeQuestion(question);
    const candidates = corrections.map((c) => ({ correction: c, prepared: this.prepare(c) }));
    const lexical = candidates.map((c) => lexicalSimilarity(asked, c.prepared.analyzed));
    const semantic = await this.semanticScores(question, candidates, signal);
    let best: CorrectionMatch | null = null;
    for (const [i, c] of candidates.entries()) {
      const words = lexical[i] ?? 0;
      const meaning = semantic?.[i] ?? null;
      if (!sameQuestion(words, meaning)) continue;
      const score = Math.max(words, meaning ?? 0);
      if (!best || score > best.score) best = { correction: toCorrection(c.correction), score };
    }
    return best;
  }

  /**
   * Which of `questions` the correction would answer — the test `find` applies, lexical and (with a
   * semantic embedder) cosine — and which share a word with its question but stay below the match.
   * Each list best first, `limit` long at most.
   */
  async examples(
    correction: CorrectionRecord,
    questions: RecentQuestion[],
    limit: number,
    signal: AbortSignal,
  ): Promise<{ wouldAnswer: CorrectionExample[]; wouldNotAnswer: CorrectionExample[] }> {
    const prepared = this.prepare(correction);
    const semantic = await this.cosines(correction, prepared, questions, signal);
    const would: CorrectionExample[] = [];
    const wouldNot: CorrectionExample[] = [];
    questions.forEach((q, i) => {
      const analyzed = analyzeQuestion(q.question);
      const words = lexicalSimilarity(analyzed, prepared.analyzed);
      const meaning = semantic?.[i] ?? null;
      const score = Math.round(Math.max(words, meaning ?? 0) * 1000) / 1000;
      if (sameQuestion(words, meaning)) would.push({ ...q, score });
      else if (sharesTerms(analyzed, prepared.analyzed)) wouldNot.push({ ...q, score });
    });
    const best = (a: CorrectionExample, b: CorrectionExample) =>
      b.score - a.score || b.times - a.times || b.askedAt.localeCompare(a.askedAt);
    return {
      wouldAnswer: would.sort(best).slice(0, limit),
      wouldNotAnswer: wouldNot.sort(best).slice(0, limit),
    };
  }

  /** Cosines of the correction's question with each question, or null as `semanticScores` gives it. */
  private async cosines(
    correction: CorrectionRecord,
    prepared: Prepared,
    questions: RecentQuestion[],
    signal: AbortSignal,
  ): Promise<number[] | null> {
    const embedder = this.embedder;
    if (!isSemantic(embedder) || questions.length === 0) return null;
    try {
      const texts = [...(prepared.vector ? [] : [correction.question]), ...questions.map((q) => q.question)];
      const vectors = await embedder.embed(texts, signal);
      if (!prepared.vector) prepared.vector = vectors.shift();
      const own = prepared.vector;
      if (!own) return null;
      return questions.map((_, i) => {
        const v = vectors[i];
        return v ? cosine(v, own) : 0;
      });
    } catch (error) {
      if (signal.aborted) throw error;
      this.logger?.warn("embedding questions for a correction's examples failed", { error: String(error) });
      return null;
    }
  }

  /** Cosine of the question with each candidate, or null without a semantic embedder (or when it fails). */
  private async semanticScores(
    question: string,
    candidates: { correction: CorrectionRecord; prepared: Prepared }[],
    signal: AbortSignal,
  ): Promise<number[] | null> {
    const embedder = this.embedder;
    if (!isSemantic(embedder)) return null;
    try {
      const missing = candidates.filter((c) => !c.prepared.vector);
      const texts = [question, ...missing.map((c) => c.correction.question)];
      const [asked, ...vectors] = await embedder.embed(texts, signal);
      missing.forEach((c, i) => {
        c.prepared.vector = vectors[i];
      });
      if (!asked) return null;
      return candidates.map((c) => (c.prepared.vector ? cosine(asked, c.prepared.vector) : 0));
    } catch (error) {
      if (signal.aborted) throw error;
      // Matching by words still works; the answer must not fail because the embedder did.
      this.logger?.warn("embedding a question for corrections failed", { error: String(error) });
      return null;
    }
  }

  private prepare(c: CorrectionRecord): Prepared {
    const version = `${c.updatedAt}\n${c.question}`;
    const known = this.prepared.get(c.id);
    if (known?.version === version) return known;
    const fresh: Prepared = { version, analyzed: analyzeQuestion(c.question) };
    this.prepared.set(c.id, fresh);
    return fresh;
  }

  private forAgent(agentId: string): CorrectionRecord[] {
    return this.table.filter((c) => c.agentId === agentId);
  }

  idle(): Promise<void> {
    return this.table.idle();
  }
}
