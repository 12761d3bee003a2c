/** SQuAD's answer normalisation: lowercase, no punctuation, no articles, single spaces. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, "")
    .replace(/\b(a|an|the)\b/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** English function words that carry no topic; shared by the extractive answerer and reranking. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are aren't as at be because been before being below " +
    "between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each " +
    "either else ever few for from further get gets got had hadn't has hasn't have haven't having he he'd he'll " +
    "he's her here here's hers herself him himself his how how's however i i'd i'll i'm i've if in into is isn't it " +
    "it's its itself just let's may me might more most much must mustn't my myself neither no nor not now of off on " +
    "once only or other ought our ours ourselves out over own same shall shan't she she'd she'll she's should " +
    "shouldn't so some such than that that's the their theirs them themselves then there there's these they they'd " +
    "they'll they're they've this those though through thus to too under until up upon us very was wasn't we we'd " +
    "we'll we're we've were weren't what what's when when's where where's whether which while who who's whom whose " +
    "why why's will with within without won't would wouldn't yet you you'd you'll you're you've your yours yourself " +
    "yourselves s t d ll re ve"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/** Lowercased words with inner apostrophes kept (`don't`), everything else dropped. */
export function tokenizeWords(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));
}

/** A light English stemmer: folds plurals and common verb/adverb endings so `rivers`/`river`, `founded`/`founding` meet. */
export function stemWord(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is") && w.length > 3)
    w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith("ing")) w = undouble(w.slice(0, -3));
  else if (w.length >= 4 && w.endsWith("ed") && !w.endsWith("eed")) w = undouble(w.slice(0, -2));
  if (w.length > 5 && w.endsWith("ly")) w = w.slice(0, -2);
  if (w.length >= 4 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  const last = w.at(-1);
  if (last !== undefined && w.length > 3 && last === w.at(-2) && !"lsz".includes(last)) return w.slice(0, -1);
  return w;
}

/** Content terms of a text: words minus stop words, stemmed. The unit of matching for reranking and extraction. */
export function tokenizeTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of tokenizeWords(text)) {
    if (STOP_WORDS.has(word)) continue;
    terms.push(stemWord(word));
  }
  return terms;
}
