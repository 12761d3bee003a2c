/**
 * Index terms that contain one another at an edge: "jahr"/"jahren", "warschau"/"warschaus",
 * "zeit"/"spielzeit", "verteidigung"/"verteidigungsspiel". The stemmer is English; in German, Dutch
 * or Swedish an inflected form or a compound keeps the word it is built on at its start or end, and
 * in English a derived form often does ("play"/"player"). Both parts must have at least
 * `MIN_VARIANT_LENGTH` characters and no digits.
 *
 * Longer variants of a term are found by binary search in the vocabulary sorted forwards (terms that
 * start with it) and backwards (terms that end with it); new terms wait in a short unsorted list that
 * is merged in once it grows, so adding a term stays cheap while a corpus loads.
 */
export const MIN_VARIANT_LENGTH = 4;
/**
 * The longest term that takes part in variants: `of` slices every head and tail of a term, O(n²) in
 * its length, so a 10,000-letter question word took seconds. Real compounds stay far below this.
 */
export const MAX_VARIANT_LENGTH = 64;
/** Longer variants looked at per term: a short word can start hundreds of compounds. */
const MAX_LONGER_VARIANTS = 64;
const withDigit = /[0-9]/;

/** Whether a term takes part in variants: long enough and without digits. */
export function canHaveVariants(term: string): boolean {
  return term.length >= MIN_VARIANT_LENGTH && term.length <= MAX_VARIANT_LENGTH && !withDigit.test(term);
}

/** Whether one of two different terms starts or ends with the other. */
export function isEdgeVariant(a: string, b: string): boolean {
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return long.startsWith(short) || long.endsWith(short);
}

const reverse = (term: string): string => [...term].reverse().join("");

function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] ?? "") < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sorted merge of two sorted lists. */
function merge(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x <= y)) {
      out.push(x as string);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

export class TermVariants {
  private forward: string[] = [];
  private backward: string[] = [];
  private pending: string[] = [];

  /** Registers a new index term. */
  add(term: string): void {
    if (!canHaveVariants(term)) return;
    this.pending.push(term);
    if (this.pending.length > Math.max(256, this.forward.length / 64)) this.flush();
  }

  /** Registers many terms at once (a loaded index), sorted in one go. */
  addAll(terms: Iterable<string>): void {
    for (const term of terms) if (canHaveVariants(term)) this.pending.push(term);
    this.flush();
  }

  /**
   * The registered terms that are a variant of `term` (not `term` itself): the shorter ones it starts
   * or ends with, then up to MAX_LONGER_VARIANTS longer ones that start or end with it.
   */
  of(term: string, isTerm: (candidate: string) => boolean): string[] {
    // O(n²) in the term's length n (every head and tail is built): n ≤ MAX_VARIANT_LENGTH.
    if (!canHaveVariants(term)) return [];
    const out = new Set<string>();
    const chars = [...term];
    for (let k = MIN_VARIANT_LENGTH; k < chars.length; k++) {
      const head = chars.slice(0, k).join("");
      const tail = chars.slice(chars.length - k).join("");
      if (isTerm(head)) out.add(head);
      if (isTerm(tail)) out.add(tail);
    }
    let longer = 0;
    const take = (candidate: string): boolean => {
      if (candidate === term || out.has(candidate)) return true;
      out.add(candidate);
      return ++longer < MAX_LONGER_VARIANTS;
    };
    const backwardKey = reverse(term);
    for (let i = lowerBound(this.forward, term); i < this.forward.length; i++) {
      const candidate = this.forward[i] ?? "";
      if (!candidate.startsWith(term) || !take(candidate)) break;
    }
    for (let i = lowerBound(this.backward, backwardKey); i < this.backward.length; i++) {
      const candidate = this.backward[i] ?? "";
      if (!candidate.startsWith(backwardKey) || !take(reverse(candidate))) break;
    }
    for (const candidate of this.pending) {
      if (longer >= MAX_LONGER_VARIANTS) break;
      if (candidate.length > term.length && isEdgeVariant(candidate, term)) take(candidate);
    }
    return [...out];
  }

  private flush(): void {
    const added = this.pending.sort();
    this.forward = merge(this.forward, added);
    this.backward = merge(this.backward, added.map(reverse).sort());
    this.pending = [];
  }
}
