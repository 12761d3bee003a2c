import type { Citation } from "@lore/shared";
import { safeHttpUrl } from "../markdown.ts";
import { useWidget } from "./context.ts";
import { LazySnippet, loadExtras } from "./lazy.tsx";

export interface CitationsProps {
  sources: readonly Citation[];
  /** The answer citing them, to mark what it quoted in each snippet. */
  answer: string;
  expanded: readonly number[];
  onToggle: (rank: number) => void;
  /** Prefix of each card body's id; the card of rank n is `${idPrefix}${n}`. */
  idPrefix: string;
}

/** The answer's sources as expandable cards: title and data source, then snippet and link. */
export function Citations({ sources, answer, expanded, onToggle, idPrefix }: CitationsProps) {
  const { i18n } = useWidget();
  // An answer with sources is when a visitor may open one: fetch the snippet code now, not on the
  // click (loadExtras starts the fetch once, so calling it on every render costs nothing).
  loadExtras();
  return (
    // No aria-label: a named section is a landmark, and every answer would add another "Sources" one.
    <section class="sources" data-lore="sources">
      <h3 class="sources-title">{i18n.t("sources")}</h3>
      <ol>
        {sources.map((source) => {
          const open = expanded.includes(source.rank);
          const href = safeHttpUrl(source.sourceUrl);
          return (
            <li key={source.rank} class="source" data-lore="source" data-rank={source.rank}>
              <button
                type="button"
                class="source-toggle"
                data-lore="source-toggle"
                aria-expanded={open}
                aria-controls={`${idPrefix}${source.rank}`}
                onClick={() => onToggle(source.rank)}
              >
                <span class="rank" aria-hidden="true">
                  {source.rank}
                </span>
                <span class="source-head">
                  <span class="source-name">{source.title || source.dataSourceName}</span>
                  <span class="source-origin">{source.dataSourceName}</span>
                </span>
                <span class="chevron" aria-hidden="true" />
              </button>
              <div
                id={`${idPrefix}${source.rank}`}
                class="source-body"
                hidden={!open}
                data-lore="source-body"
              >
                {open && <LazySnippet source={source} answer={answer} />}
                {href && (
                  <a href={href} target="_blank" rel="noopener noreferrer nofollow" data-lore="source-link">
                    {i18n.t("openSource")}
                  </a>
                )}
              </div>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
