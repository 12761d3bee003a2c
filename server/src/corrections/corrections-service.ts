import { createHash, randomUUID } from "node:crypto";
import type {
  Citation,
  Correction,
  CorrectionMatch as CorrectionExample,
  CreateCorrectionRequest,
  UpdateCorrectionRequest,
} from "@lore/shared";
import type { RecentQuestion } from "../conversations/conversations-service.ts";
import { notFound } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import type { Logger } from "../log/logger.ts";
import { cosine, type Embedder } from "../retrieval/embedder.ts";
import type { RecordTable } from "../store/record-table.ts";
import type { AgentRecord, DocumentRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import {
  analyzeQuestion,
  type CorrectionEntry,
  isSemantic,
  prepareEntry,
  rarityAmong,
  sameQuestion,
  scoreEntry,
  sharesTerms,
} from "./match-correction.ts";

/** A passage the corrected answer cited, as it was when the correction was made (or last saved). */
export interface CitedPassage {
  documentId: string;
  chunkId: string;
  dataSourceId: string;
  title: string;
  /** SHA-256 of the cited text. */
  textHash: string;
  /** The document's `contentHash` then: another one on a later sync means it changed. */
  documentVersion: string;
}

/**
 * A correction as stored: its agent's workspace kept for isolation checks. Records stored before
 * "also answers" wordings and staleness lack those fields (read as none and not stale).
 */
export type CorrectionRecord = Omit<Correction, "alsoAnswers" | "stale" | "staleSince" | "staleSource"> &
  Partial<Pick<Correction, "alsoAnswers" | "stale" | "staleSince" | "staleSource">> & {
    workspaceId: string;
    /** The passages the replaced answer cited (corrections made from an answer). */
    cited?: CitedPassage[];
  };

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
  const { workspaceId: _w, cited: _c, ...correction } = r;
  return {
    ...correction,
    alsoAnswers: r.alsoAnswers ?? [],
    stale: r.stale ?? false,
    staleSince: r.staleSince ?? null,
    staleSource: r.staleSource ?? null,
  };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A correction as matching sees it, remembered per correction version. */
interface Prepared {
  version: string;
  entry: CorrectionEntry;
  /** Each wording's embedding, when a semantic embedder is configured. */
  vectors?: Float32Array[];
}

/**
 * Question/answer pairs the owner wrote for an agent (the `corrections` table); matching a visitor's
 * question against them as FAQ entries (see match-correction.ts); and marking one stale when the
 * passage it replaced changes in a later sync.
 */
export class CorrectionsService implements CorrectionFinder {
  private readonly prepared = new Map<string, Prepared>();

  private constructor(
    private readonly table: RecordTable<CorrectionRecord>,
    private readonly documents: RecordTable<DocumentRecord>,
    private readonly embedder: Embedder | null,
    private readonly logger: Logger | null,
  ) {}

  static async open(
    store: Store,
    options: { embedder?: Embedder | null; logger?: Logger; events?: EventBus } = {},
  ): Promise<CorrectionsService> {
    const table = await store.openRecords<CorrectionRecord>("corrections");
    const service = new CorrectionsService(
      table,
      store.documents,
      options.embedder ?? null,
      options.logger ?? null,
    );
    options.events?.subscribe(async (event) => {
      if (event.type !== "data_source.sync.completed") return;
      try {
        await service.markStale(event.workspaceId, event.dataSourceId);
      } catch (error) {
        service.logger?.warn("checking corrections for changed sources failed", { error: String(error) });
      }
    });
    return service;
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

  /** Adds a correction; one made from an answer remembers the passages that answer cited. */
  async create(
    agent: AgentRecord,
    body: CreateCorrectionRequest & { messageId?: string | null; citations?: readonly Citation[] },
  ): Promise<Correction> {
    const now = new Date().toISOString();
    const record: CorrectionRecord = {
      id: randomUUID(),
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      question: body.question.trim(),
      alsoAnswers: wordings(body.alsoAnswers ?? []),
      answer: body.answer.trim(),
      messageId: body.messageId ?? null,
      stale: false,
      staleSince: null,
      staleSource: null,
      cited: this.citedPassages(body.citations ?? []),
      createdAt: now,
      updatedAt: now,
    };
    return toCorrection(await this.table.put(record));
  }

  /** Saves an edit; the owner has reviewed it, so it is no longer stale and its sources count as seen. */
  async update(record: CorrectionRecord, body: UpdateCorrectionRequest): Promise<Correction> {
    const updated: CorrectionRecord = {
      ...record,
      question: body.question?.trim() ?? record.question,
      alsoAnswers: body.alsoAnswers ? wordings(body.alsoAnswers) : (record.alsoAnswers ?? []),
      answer: body.answer?.trim() ?? record.answer,
      stale: false,
      staleSince: null,
      staleSource: null,
      cited: this.seenAgain(record.cited ?? []),
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
    const candidates = corrections.map((c) => ({ correction: c, prepared: this.prepare(c) }));
    const rarity = rarityAmong(candidates.map((c) => c.prepared.entry));
    const asked = analyzeQuestion(question);
    const semantic = await this.semanticScores([question], candidates, signal);
    let best: CorrectionMatch | null = null;
    for (const [i, c] of candidates.entries()) {
      const words = scoreEntry(asked, c.prepared.entry, rarity);
      const meaning = semantic?.[0]?.[i] ?? null;
      if (!sameQuestion(words, meaning)) continue;
      const score = Math.max(words, meaning ?? 0);
      if (!best || score > best.score) best = { correction: toCorrection(c.correction), score };
    }
    return best;
  }

  /**
   * Which of `questions` the correction now catches (`find` would answer them with it, by the same
   * test) and which it misses: they share a word with one of its wordings but stay below the match,
   * or another correction matches them better. Each list best first, `limit` long at most.
   */
  async examples(
    correction: CorrectionRecord,
    questions: RecentQuestion[],
    limit: number,
    signal: AbortSignal,
  ): Promise<{ wouldAnswer: CorrectionExample[]; wouldNotAnswer: CorrectionExample[] }> {
    const candidates = this.forAgent(correction.agentId).map((c) => ({
      correction: c,
      prepared: this.prepare(c),
    }));
    const own = candidates.findIndex((c) => c.correction.id === correction.id);
    const ownEntry = candidates[own]?.prepared.entry;
    if (!ownEntry) return { wouldAnswer: [], wouldNotAnswer: [] };
    const rarity = rarityAmong(candidates.map((c) => c.prepared.entry));
    const semantic = await this.semanticScores(
      questions.map((q) => q.question),
      candidates,
      signal,
    );
    const would: CorrectionExample[] = [];
    const wouldNot: CorrectionExample[] = [];
    questions.forEach((q, i) => {
      const asked = analyzeQuestion(q.question);
      const scores = candidates.map((c, j) => {
        const words = scoreEntry(asked, c.prepared.entry, rarity);
        const meaning = semantic?.[i]?.[j] ?? null;
        return { matches: sameQuestion(words, meaning), score: Math.max(words, meaning ?? 0) };
      });
      const mine = scores[own] ?? { matches: false, score: 0 };
      const score = Math.round(mine.score * 1000) / 1000;
      const beaten = scores.some((s, j) => j !== own && s.matches && s.score > mine.score);
      if (mine.matches && !beaten) would.push({ ...q, score });
      else if (sharesTerms(asked, ownEntry)) wouldNot.push({ ...q, score });
    });
    const best = (a: CorrectionExample, b: CorrectionExample) =>
      b.score - a.score || b.times - a.times || b.askedAt.localeCompare(a.askedAt);
    return {
      wouldAnswer: would.sort(best).slice(0, limit),
      wouldNotAnswer: wouldNot.sort(best).slice(0, limit),
    };
  }

  /**
   * Marks stale each of the workspace's corrections whose cited passage came from a document of
   * `dataSourceId` that a sync has since changed or deleted. Called when a sync completes.
   */
  async markStale(workspaceId: string, dataSourceId: string): Promise<number> {
    // Decided inside the table's write turn: an edit saved meanwhile is not overwritten.
    return this.table.transact(() => {
      const now = new Date().toISOString();
      const rows: CorrectionRecord[] = [];
      for (const c of this.table.filter((r) => r.workspaceId === workspaceId && !r.stale)) {
        const staleSource = this.changedSource(c.cited ?? [], dataSourceId);
        if (staleSource) rows.push({ ...c, stale: true, staleSince: now, staleSource });
      }
      return { rows, result: rows.length };
    });
  }

  /** The first cited document of `dataSourceId` that has changed or gone since, as `staleSource` shows it. */
  private changedSource(cited: readonly CitedPassage[], dataSourceId: string): Correction["staleSource"] {
    for (const passage of cited) {
      if (passage.dataSourceId !== dataSourceId) continue;
      const document = this.documents.get(passage.documentId);
      if (document && document.contentHash === passage.documentVersion) continue;
      return {
        documentId: passage.documentId,
        dataSourceId,
        title: document?.title ?? passage.title,
        change: document ? "changed" : "deleted",
      };
    }
    return null;
  }

  /** The distinct documents' passages an answer cited, with the documents' versions now. */
  private citedPassages(citations: readonly Citation[]): CitedPassage[] {
    const out: CitedPassage[] = [];
    for (const c of citations) {
      const document = this.documents.get(c.documentId);
      if (!document || out.some((p) => p.chunkId === c.chunkId)) continue;
      out.push({
        documentId: c.documentId,
        chunkId: c.chunkId,
        dataSourceId: document.dataSourceId,
        title: document.title,
        textHash: sha256(c.content),
        documentVersion: document.contentHash,
      });
    }
    return out;
  }

  /** Cited passages as the owner has now reviewed them: current versions, deleted documents dropped. */
  private seenAgain(cited: readonly CitedPassage[]): CitedPassage[] {
    return cited.flatMap((p) => {
      const document = this.documents.get(p.documentId);
      return document ? [{ ...p, title: document.title, documentVersion: document.contentHash }] : [];
    });
  }

  /**
   * Per question, the best cosine of it with each candidate's wordings, or null without a semantic
   * embedder (or when it fails: matching by words still works, the answer must not fail).
   */
  private async semanticScores(
    questions: string[],
    candidates: { correction: CorrectionRecord; prepared: Prepared }[],
    signal: AbortSignal,
  ): Promise<number[][] | null> {
    const embedder = this.embedder;
    if (!isSemantic(embedder) || questions.length === 0) return null;
    try {
      const missing = candidates.filter((c) => !c.prepared.vectors);
      const texts = missing.flatMap((c) => wordingsOf(c.correction));
      const vectors = await embedder.embed([...questions, ...texts], signal);
      const asked = vectors.splice(0, questions.length);
      for (const c of missing) c.prepared.vectors = vectors.splice(0, wordingsOf(c.correction).length);
      return asked.map((a) =>
        candidates.map((c) => Math.max(0, ...(c.prepared.vectors ?? []).map((v) => cosine(a, v)))),
      );
    } catch (error) {
      if (signal.aborted) throw error;
      this.logger?.warn("embedding questions for corrections failed", { error: String(error) });
      return null;
    }
  }

  private prepare(c: CorrectionRecord): Prepared {
    const version = `${c.updatedAt}\n${c.question}\n${(c.alsoAnswers ?? []).join("\n")}\n${c.answer}`;
    const known = this.prepared.get(c.id);
    if (known?.version === version) return known;
    const fresh: Prepared = { version, entry: prepareEntry(c.question, c.alsoAnswers ?? [], c.answer) };
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

/** Trimmed wordings, repeats once. */
function wordings(list: readonly string[]): string[] {
  return [...new Set(list.map((w) => w.trim()))];
}

const wordingsOf = (c: CorrectionRecord): string[] => [c.question, ...(c.alsoAnswers ?? [])];
