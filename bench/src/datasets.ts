import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** `../shared/datasets` beside the checkout (read in place, never copied); `LORE_DATASETS_DIR` overrides. */
export const datasetsDir: string =
  process.env.LORE_DATASETS_DIR ?? fileURLToPath(new URL("../../../shared/datasets/", import.meta.url));

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
export function loadSquad(dir: string = join(datasetsDir, "squad-v1.1-dev")): SquadData {
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
export function loadPubmedQa(dir: string = join(datasetsDir, "pubmedqa-pqal")): PubmedQaItem[] {
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
export function loadHelpCenter(dir: string = join(datasetsDir, "helpcenter-duckduckgo")): HelpCenterData {
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
