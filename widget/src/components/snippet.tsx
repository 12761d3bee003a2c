import type { Citation } from "@lore/shared";
import type { Ref } from "preact";
import { cleanSnippet, findQuote } from "../snippet.ts";

const SNIPPET_LIMIT = 600;

/** A source's text as the visitor reads it: plain, cut at 600 characters, the answer's quote marked. */
export function Snippet({
  source,
  answer,
  pRef,
}: {
  source: Citation;
  answer: string;
  pRef?: Ref<HTMLParagraphElement>;
}) {
  const text = cleanSnippet(source.content);
  const snippet = text.length > SNIPPET_LIMIT ? `${text.slice(0, SNIPPET_LIMIT)}…` : text;
  const [from, to] = findQuote(snippet, answer, source.rank) ?? [0, 0];
  return (
    <p ref={pRef} class="snippet" dir="auto">
      {snippet.slice(0, from)}
      {to > from && <mark>{snippet.slice(from, to)}</mark>}
      {snippet.slice(to)}
    </p>
  );
}
