/**
 * Fits the keyword ranker's calibration model (server/src/retrieval/calibration.ts) on two tuning sets
 * at once, each with an equal say: SQuAD's tuning slice (dev half, index % 5 == 2; label = the chunk
 * holds a gold answer) and the tuning half of the help-center set (label = the chunk is from a gold
 * article and, when any candidate of a gold article holds a fact, holds one). Test halves and PubMedQA
 * are never read here.
 *
 *   node_modules/.bin/tsx bench/src/fit-ranking.ts [--title-weight X]
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@lancedb/lancedb";
import {
  applyModel,
  keywordFeatureNames,
  type LogisticModel,
} from "../../server/src/retrieval/calibration.ts";
import { ChunkIndex } from "../../server/src/retrieval/chunk-index.ts";
import { defaultLexicalParams } from "../../server/src/retrieval/lexical-index.ts";
import { containsAnswer, containsFact, loadHelpCenter, loadSquad } from "./datasets.ts";
import { fitListwise, type Group } from "./lib/fit.ts";
import { indexHelpCenter } from "./lib/helpcenter-index.ts";
import { squadParagraphChunks } from "./lib/squad-chunks.ts";

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const lexical = {
  ...defaultLexicalParams,
  titleWeight: Number(arg("--title-weight") ?? defaultLexicalParams.titleWeight),
};

async function squadGroups(): Promise<Group[]> {
  const squad = loadSquad();
  const tuning = squad.questions.filter((q) => q.half === "dev" && q.index % 5 === 2);
  const dir = mkdtempSync(join(tmpdir(), "lore-fit-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const index = await ChunkIndex.open(await connect(dir), { embedder: null, lexical });
  const sourceId = randomUUID();
  const chunks = squadParagraphChunks(squad, sourceId, "fit");
  const docIds = [...new Set(chunks.map((c) => c.documentId))];
  await index.replaceDocuments(
    docIds.map((documentId) => ({ documentId, chunks: chunks.filter((c) => c.documentId === documentId) })),
  );
  const groups: Group[] = [];
  for (const q of tuning) {
    const rows = await index.explain({
      query: q.question,
      dataSourceIds: [sourceId],
      topK: 20,
      minScore: 0,
      mode: "keyword",
    });
    groups.push(
      rows.map((r) => ({ features: r.features, label: containsAnswer(r.chunk.text, q.answers) ? 1 : 0 })),
    );
  }
  return groups;
}

async function helpCenterGroups(): Promise<Group[]> {
  const data = loadHelpCenter();
  const { index, sourceId, pathOf } = await indexHelpCenter(data, { lexical });
  const groups: Group[] = [];
  for (const q of data.questions) {
    if (q.half !== "tuning" || q.kind !== "answerable") continue;
    const rows = await index.explain({
      query: q.question ?? "",
      dataSourceIds: [sourceId],
      topK: 20,
      minScore: 0,
      mode: "keyword",
    });
    const gold = rows.map((r) => q.gold.includes(pathOf.get(r.chunk.documentId) ?? ""));
    const factful = rows.map(
      (r, i) => gold[i] === true && q.facts.some((f) => containsFact(r.chunk.text, f)),
    );
    const useFacts = process.env.FIT_FACTS === "1" && factful.some(Boolean);
    groups.push(
      rows.map((r, i) => ({ features: r.features, label: (useFacts ? factful[i] : gold[i]) ? 1 : 0 })),
    );
  }
  return groups;
}

function top1(groups: Group[], model: LogisticModel): number {
  let hit = 0;
  for (const group of groups) {
    let best = -1;
    let label = 0;
    for (const c of group) {
      const s = applyModel(model, c.features);
      if (s > best) {
        best = s;
        label = c.label;
      }
    }
    hit += label;
  }
  return Math.round((hit / Math.max(1, groups.length)) * 1000) / 1000;
}

const squad = await squadGroups();
const help = await helpCenterGroups();
const weight = squad.length / Math.max(1, help.length);
for (const g of help) g.weight = weight;
const model = fitListwise([...squad, ...help]);
const squadOnly = fitListwise(squad);
console.log(`squad groups ${squad.length}, help-center groups ${help.length} (weight ${weight.toFixed(1)})`);
console.log(`features: ${keywordFeatureNames.join(", ")}`);
console.log(`joint model: ${JSON.stringify(model)}`);
console.log(`  tuning top1: squad ${top1(squad, model)}, help center ${top1(help, model)}`);
console.log(`squad-only model: squad ${top1(squad, squadOnly)}, help center ${top1(help, squadOnly)}`);
