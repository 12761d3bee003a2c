// Source snippets as the visitor reads them: plain text, with the part the answer drew on marked.

/** Chunk text without Markdown syntax: link targets, heading and quote marks, emphasis, table pipes. */
export function cleanSnippet(text: string): string {
  return (
    text
      .replace(/!?\[([^\]]*)\]\([^)\s]*\)/g, "$1")
      .replace(/^ {0,3}(#{1,6}[ \t]+|>[ \t]?)/gm, "")
      // Table divider rows and rules.
      .replace(/^[ \t|:-]*---[ \t|:-]*(\n|$)/gm, "")
      .replace(/\*\*|__|`/g, "")
      // A single * next to a word is emphasis; "* item" and "2 * 3" stay.
      .replace(/\*(?=\S)|(\S)\*/g, "$1")
      .replace(/^[ \t]*\|[ \t]*|[ \t]*\|[ \t]*$/gm, "")
      .replace(/[ \t]*\|[ \t]*/g, " · ")
      .replace(/\n{3,}/g, "\n\n")
      .trim()
  );
}

const word = /[\p{L}\p{N}]+/gu;

/**
 * The [start, end) of `snippet` that the answer quoted where it cites `rank`: the longest run of
 * words shared with the text before its [rank] markers, else the snippet sentence sharing the most
 * words; null when the overlap is weak.
 */
export function findQuote(snippet: string, answer: string, rank: number): [number, number] | null {
  // Text, marker group, text, …: adjacent markers ("[1][2]", "[1], [2]") share the text before them.
  const parts = answer.split(/((?:\[\d[\d, ]*\][ ,]*)+)/);
  let cited = "";
  for (let k = 1; k < parts.length; k += 2)
    if (parts[k]?.match(/\d+/g)?.includes(`${rank}`)) cited += ` ${parts[k - 1]}`;
  const said: string[] = cited.toLowerCase().match(word) ?? [];

  // The longest run of words in both, one row of the usual table at a time.
  const words = [...snippet.matchAll(word)];
  let best = 0;
  let end = 0;
  let previous: number[] = [];
  words.forEach((w, i) => {
    const v = w[0].toLowerCase();
    previous = said.map((s, j) => {
      const n = s === v ? (previous[j - 1] ?? 0) + 1 : 0;
      if (n > best) {
        best = n;
        end = i;
      }
      return n;
    });
  });
  const first = words[end - best + 1];
  const last = words[end];
  if (best > 3 && first && last) return [first.index, last.index + last[0].length];

  // No quote: the sentence sharing the most longer words, if they are half of its own.
  let top = 2;
  let hit: [number, number] | null = null;
  for (const s of snippet.matchAll(/[^\s.!?][^.!?\n]*[.!?]*/g)) {
    const own = new Set(
      s[0]
        .toLowerCase()
        .match(word)
        ?.filter((w) => w.length > 3),
    );
    const shared = [...own].filter((w) => said.includes(w)).length;
    if (shared > top && shared * 2 >= own.size) {
      top = shared;
      hit = [s.index, s.index + s[0].length];
    }
  }
  return hit;
}
