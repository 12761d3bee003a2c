/**
 * Fits the weights with which the extractive answerer chooses the section an answer comes from
 * (`sectionChoice` in server/src/generation/extractive-model.ts, see `chooseSection`) on the TUNING
 * half of the help-center set: for each answerable question, its retrieved chunks (topK 5) are the
 * candidates, and a chunk is right when its opening (the first `openingWords` words) holds every fact.
 * Conditional logit over the candidates; prints the weights and how often the chosen section is right
 * on each half (the test half is only reported).
 *
 *   node_modules/.bin/tsx bench/src/fit-sections.ts
 */
import {
  chooseSection,
  defaultExtractiveOptions,
  rankAnswerUnits,
  type SectionChoiceWeights,
  sectionFeatures,
} from "../../server/src/generation/extractive-model.ts";
import type { RetrievedChunk } from "../../server/src/generation/types.ts";
import { containsFact, loadHelpCenter } from "./datasets.ts";
import { fitListwise, type Group } from "./lib/fit.ts";
import { searchRetrieve } from "./lib/helpcenter-eval.ts";
import { indexHelpCenter } from "./lib/helpcenter-index.ts";
import { markdownTable } from "./lib/report.ts";

const FEATURES = [
  "retrieval",
  "evidence",
  "title",
  "articleLead",
] as const satisfies readonly (keyof SectionChoiceWeights)[];

interface Candidates {
  half: string;
  chunks: RetrievedChunk[];
  ranking: ReturnType<typeof rankAnswerUnits>;
  right: boolean[];
}

const data = loadHelpCenter();
const hc = await indexHelpCenter(data, {});
const retrieve = searchRetrieve(hc, { topK: 5, minScore: 0 });
const opening = (text: string) => text.split(/\s+/).slice(0, defaultExtractiveOptions.openingWords).join(" ");

const questions: Candidates[] = [];
for (const q of data.questions.filter((x) => x.kind === "answerable")) {
  const chunks = await retrieve(q.question ?? "", q);
  if (chunks.length === 0) continue;
  const ranking = rankAnswerUnits(q.question ?? "", chunks, defaultExtractiveOptions);
  const right = chunks.map((c) => q.facts.every((f) => containsFact(opening(c.text), f)));
  questions.push({ half: q.half ?? "", chunks, ranking, right });
}

/** The features chooseSection weighs, per candidate, in FEATURES order. */
function featuresOf({ chunks, ranking }: Candidates): number[][] {
  return sectionFeatures(chunks, ranking).map(({ features }) => FEATURES.map((name) => features[name]));
}

const groups: Group[] = questions
  .filter((q) => q.half === "tuning")
  .map((q) => featuresOf(q).map((features, i) => ({ features, label: q.right[i] ? 1 : 0 })));
const fitted = fitListwise(groups);
const weights = Object.fromEntries(
  FEATURES.map((name, i) => [name, Math.round((fitted.weights[i] ?? 0) * 100) / 100]),
) as unknown as SectionChoiceWeights;

const rows = ["tuning", "test"].map((half) => {
  const qs = questions.filter((q) => q.half === half);
  const share = (pick: (q: Candidates) => number) =>
    Math.round((qs.filter((q) => q.right[pick(q)]).length / qs.length) * 1000) / 1000;
  return [
    half,
    qs.length,
    Math.round((qs.filter((q) => q.right.some(Boolean)).length / qs.length) * 1000) / 1000,
    share(() => 0),
    share((q) => q.ranking.ranked[0]?.chunkIndex ?? 0),
    share((q) => chooseSection(q.chunks, q.ranking, defaultExtractiveOptions.sectionChoice)),
    share((q) => chooseSection(q.chunks, q.ranking, weights)),
  ];
});
console.log(`fitted on the tuning half: ${JSON.stringify(weights)}`);
console.log(
  markdownTable(
    [
      "half",
      "questions",
      "some section's opening holds the facts",
      "top retrieved",
      "best unit's section",
      "chosen (defaults)",
      "chosen (fitted now)",
    ],
    rows,
  ),
);
