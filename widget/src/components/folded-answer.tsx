import type { VNode } from "preact";
import { useState } from "preact/hooks";
import { useWidget } from "./context.ts";
// Its English strings come with this chunk.
import "./extras-en.ts";

/** About what a visitor reads at a glance: a longer answer shows this much and folds the rest (issue #50). */
export const VISIBLE_WORDS = 120;

/**
 * A long answer (a whole help section) split at a paragraph or block boundary once about
 * VISIBLE_WORDS are shown; the first block always shows, and a tail of a few words is not folded.
 */
export function foldAnswer(text: string, budget = VISIBLE_WORDS): { shown: string; rest: string } {
  const blocks = text.split(/\n{2,}/);
  const words = (t: string) => t.split(/\s+/).filter(Boolean).length;
  let shownWords = 0;
  let at = 0;
  while (at < blocks.length && (at === 0 || shownWords + words(blocks[at] ?? "") <= budget)) {
    shownWords += words(blocks[at] ?? "");
    at++;
  }
  const rest = blocks.slice(at).join("\n\n");
  if (words(rest) < 15) return { shown: text, rest: "" };
  return { shown: blocks.slice(0, at).join("\n\n"), rest };
}

/** A complete answer, its first ~120 words shown and the rest behind "Show the whole section". */
export function FoldedAnswer({ text, render }: { text: string; render: (text: string) => VNode }) {
  const { i18n } = useWidget();
  const [unfolded, setUnfolded] = useState(false);
  const fold = foldAnswer(text);
  if (unfolded || !fold.rest) return render(text);
  return (
    <>
      {render(fold.shown)}
      <button
        type="button"
        class="link-btn fold-btn"
        data-lore="show-section"
        aria-expanded="false"
        onClick={() => setUnfolded(true)}
      >
        {i18n.t("showSection")}
      </button>
    </>
  );
}
