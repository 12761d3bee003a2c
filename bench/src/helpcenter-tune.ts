/**
 * In-process evaluation of the help-center set for tuning (no HTTP, no server): parses and chunks the
 * articles as a sync does, indexes them in a temporary LanceDB, then searches and answers each question
 * with the default answerer. Parameters are chosen on the tuning half only; `--half test` reports the
 * other half once they are fixed.
 *
 *   node_modules/.bin/tsx bench/src/helpcenter-tune.ts [--half tuning|test|all] [--min-score X] [--show N]
 *     [--top-k K] [--lexical JSON] [--answer JSON] [--dir DIR]
 *
 * `--dir` reads another help center in the same format (`articles.json`, `questions.json`), e.g. one
 * fetched and labelled outside the project to check that a rule chosen here holds elsewhere.
 */
import { createExtractiveModel } from "../../server/src/generation/extractive-model.ts";
import { loadHelpCenter } from "./datasets.ts";
import { evaluate, searchRetrieve } from "./lib/helpcenter-eval.ts";
import { indexHelpCenter } from "./lib/helpcenter-index.ts";

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const half = arg("--half") ?? "tuning";
const minScore = Number(arg("--min-score") ?? 0);
const show = Number(arg("--show") ?? 0);
const topK = Number(arg("--top-k") ?? 5);

const dir = arg("--dir");
const data = dir ? loadHelpCenter(dir) : loadHelpCenter();
const t0 = performance.now();
const hc = await indexHelpCenter(data, { lexical: JSON.parse(arg("--lexical") ?? "{}") });
console.error(`indexed ${hc.index.size} chunks in ${Math.round(performance.now() - t0)} ms`);

const model = createExtractiveModel(JSON.parse(arg("--answer") ?? "{}"));
const items = data.questions.filter((q) => half === "all" || q.half === half);
const { metrics, failures } = await evaluate(hc, model, searchRetrieve(hc, { topK, minScore }), items);
console.log(JSON.stringify({ half, minScore, ...metrics }));
for (const f of failures.slice(0, show)) console.log(f);
