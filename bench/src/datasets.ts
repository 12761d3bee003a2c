import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** `../shared/datasets` beside the checkout (read in place, never copied); `LORE_DATASETS_DIR` overrides. */
export const datasetsDir: string = resolve(
  process.env.LORE_DATASETS_DIR || fileURLToPath(new URL("../../../shared/datasets/", import.meta.url)),
);

/**
 * The public datasets the benchmarks (and the tests that measure on real data) read, each a folder
 * of `datasetsDir`: the files that must be there and where the folder comes from (its `SOURCE.md`
 * says exactly which commit and paths). The repository ships none of them; `npm test` needs none.
 */
export const publicDatasets = {
  "squad-v1.1-dev": {
    files: ["dev-v1.1.json", "test-v1.1.json"],
    source: "SQuAD v1.1 dev, data/ of https://github.com/bloomsburyai/question-generation at 88cc78c",
  },
  "pubmedqa-pqal": {
    files: ["ori_pqal.json"],
    source: "PubMedQA PQA-L, data/ of https://github.com/pubmedqa/pubmedqa",
  },
  "helpcenter-duckduckgo": {
    files: ["articles.json", "questions.json"],
    source:
      "202 articles of https://github.com/duckduckgo/duckduckgo-help-pages with 201 questions, made by its build.py",
  },
  financebench: {
    files: ["financebench_open_source.jsonl", "pdfs"],
    source: "FinanceBench, data/ and 40 PDFs of https://github.com/patronus-ai/financebench",
  },
  xquad: {
    files: ["xquad.en.json", "xquad.de.json"],
    source: "XQuAD, xquad.<lang>.json of https://github.com/google-deepmind/xquad",
  },
  "py-pdf-sample-files": {
    files: ["files.json", "005-libreoffice-writer-password/libreoffice-writer-password.pdf"],
    source: "every PDF and files.json of https://github.com/py-pdf/sample-files",
  },
} as const satisfies Record<string, { files: readonly string[]; source: string }>;

export type DatasetName = keyof typeof publicDatasets;

/** One line saying what is missing and where to get it, or null when the dataset is there. */
export function missingDataset(name: DatasetName): string | null {
  const dir = join(datasetsDir, name);
  const absent = publicDatasets[name].files.find((file) => !existsSync(join(dir, file)));
  if (absent === undefined) return null;
  return `public dataset ${name} missing (no ${join(dir, absent)}): get ${publicDatasets[name].source}, or point LORE_DATASETS_DIR at a folder holding ${name}/ (README, "Public datasets")`;
}

/** The dataset's folder; throws the one-line reason when it is missing. */
export function datasetPath(name: DatasetName): string {
  const missing = missingDataset(name);
  if (missing) throw new Error(missing);
  return join(datasetsDir, name);
}

/** CI runs with `../shared/` beside the checkout: there a missing dataset is an error, never a skip. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI !== undefined && env.CI !== "" && env.CI !== "false" && env.CI !== "0";
}

/**
 * For a test or benchmark that measures on public data: true when every named dataset is there.
 * When one is not, prints one line (what is missing, where to get it) and returns false, so the
 * caller skips; under CI it throws instead, so nothing is silently skipped there.
 */
export function hasDatasets(what: string, ...names: DatasetName[]): boolean {
  const missing = names.map(missingDataset).find((m) => m !== null);
  if (!missing) return true;
  if (inCi())
    throw new Error(`${what}: ${missing}; CI runs with the datasets, so this fails instead of skipping`);
  process.stdout.write(`[lore] skipped ${what}: ${missing}\n`);
  return false;
}

export interface SquadParagraph {
  /** Position in the combined dev set (dev-v1.1.json then test-v1.1.json halves). */
  index: number;
  articleTitle: string;
  /** Index of the article in the combined set. */
  articleIndex: number;
  context: string;
}

export interface SquadQuestion {
  /** Position among all 10,570 questions, in file order. */
  index: number;
  id: string;
  question: string;
  answers: string[];
  paragraphIndex: number;
  /** Which half of the dev set the question comes from: `dev` (dev-v1.1.json) or `test` (test-v1.1.json). */
  half: "dev" | "test";
}

export interface SquadData {
  articles: { title: string; paragraphIndexes: number[] }[];
  paragraphs: SquadParagraph[];
  questions: SquadQuestion[];
}

interface SquadFile {
  data: {
    title: string;
    paragraphs: { context: string; qas: { id: string; question: string; answers: { text: string }[] }[] }[];
  }[];
}

/** SQuAD v1.1 dev: 48 articles, 2,067 paragraphs, 10,570 questions (both halves, in file order). */
export function loadSquad(dir: string = datasetPath("squad-v1.1-dev")): SquadData {
  const out: SquadData = { articles: [], paragraphs: [], questions: [] };
  for (const half of ["dev", "test"] as const) {
    const file = JSON.parse(readFileSync(join(dir, `${half}-v1.1.json`), "utf8")) as SquadFile;
    for (const article of file.data) {
      const articleIndex = out.articles.length;
      const paragraphIndexes: number[] = [];
      for (const paragraph of article.paragraphs) {
        const index = out.paragraphs.length;
        paragraphIndexes.push(index);
        out.paragraphs.push({ index, articleTitle: article.title, articleIndex, context: paragraph.context });
        for (const qa of paragraph.qas) {
          out.questions.push({
            index: out.questions.length,
            id: qa.id,
            question: qa.question,
            answers: qa.answers.map((a) => a.text),
            paragraphIndex: index,
            half,
          });
        }
      }
      out.articles.push({ title: article.title, paragraphIndexes });
    }
  }
  return out;
}

/** SQuAD's answer normalisation: lowercase, no punctuation, no articles, single spaces. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, "")
    .replace(/\b(a|an|the)\b/g, " ")
    .split(/\s+/)
    .filter((w) => w !== "")
    .join(" ");
}

/** True when the normalised text contains one of the normalised gold answers. */
export function containsAnswer(text: string, answers: readonly string[]): boolean {
  const haystack = normalizeAnswer(text);
  return answers.some((answer) => {
    const needle = normalizeAnswer(answer);
    return needle !== "" && haystack.includes(needle);
  });
}

export interface PubmedQaItem {
  pmid: string;
  question: string;
  /** The abstract's sections without its conclusion. */
  contexts: string[];
  longAnswer: string;
  decision: "yes" | "no" | "maybe";
}

/** PubMedQA PQA-L: 1,000 expert-labelled questions, each with its own abstract (gold document = its PMID). */
export function loadPubmedQa(dir: string = datasetPath("pubmedqa-pqal")): PubmedQaItem[] {
  const raw = JSON.parse(readFileSync(join(dir, "ori_pqal.json"), "utf8")) as Record<
    string,
    { QUESTION: string; CONTEXTS: string[]; LONG_ANSWER: string; final_decision: "yes" | "no" | "maybe" }
  >;
  return Object.entries(raw).map(([pmid, item]) => ({
    pmid,
    question: item.QUESTION,
    contexts: item.CONTEXTS,
    longAnswer: item.LONG_ANSWER,
    decision: item.final_decision,
  }));
}

export interface HelpArticle {
  /** Repository path, the article's id (questions name gold articles by it). */
  path: string;
  title: string;
  category: string;
  /** The markdown file without its front matter: Liquid tags, HTML and tables kept as published. */
  content: string;
}

export interface HelpQuestion {
  id: string;
  kind: "answerable" | "unanswerable" | "followup";
  /** The visitor's message (answerable and unanswerable items). */
  question?: string;
  /** Follow-up items: the opening message, then the message that leans on it. */
  first?: string;
  second?: string;
  /** Paths of the articles that answer the question (empty for unanswerable items). */
  gold: string[];
  /** Verbatim substrings of a gold article a correct answer must contain. */
  facts: string[];
  /** Deterministic half: within each kind, items in file order alternate tuning, test, tuning, … */
  half: "tuning" | "test";
}

export interface HelpCenterData {
  articles: HelpArticle[];
  questions: HelpQuestion[];
}

/** The DuckDuckGo help-center set: 202 articles, 201 questions split into a tuning and a test half. */
export function loadHelpCenter(dir: string = datasetPath("helpcenter-duckduckgo")): HelpCenterData {
  const articles = JSON.parse(readFileSync(join(dir, "articles.json"), "utf8")) as HelpArticle[];
  const file = JSON.parse(readFileSync(join(dir, "questions.json"), "utf8")) as {
    items: Omit<HelpQuestion, "half">[];
  };
  const seen = new Map<string, number>();
  const questions = file.items.map((item) => {
    const n = seen.get(item.kind) ?? 0;
    seen.set(item.kind, n + 1);
    return { ...item, half: n % 2 === 0 ? "tuning" : "test" } as HelpQuestion;
  });
  return { articles, questions };
}

/** Case-insensitive containment with whitespace collapsed (the help-center set's fact check). */
export function containsFact(text: string, fact: string): boolean {
  const squash = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim();
  return squash(text).includes(squash(fact));
}
