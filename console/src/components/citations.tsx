import type { Citation } from "@lore/shared";
import { useSignal } from "@preact/signals";
import { Markdown } from "./markdown.tsx";

/**
 * An answer in Markdown whose [n] markers open the matching source card below it. Cards are
 * <details>, closed until asked for; a correction is named as one.
 */
export function AnswerWithSources(props: { text: string; sources: Citation[]; idPrefix: string }) {
  const open = useSignal<number[]>([]);
  const openCard = (n: number) => {
    if (!open.value.includes(n)) open.value = [...open.value, n];
    requestAnimationFrame(() =>
      document.getElementById(`${props.idPrefix}${n}`)?.querySelector("summary")?.focus(),
    );
  };
  return (
    <>
      <div class="answer-text">
        <Markdown
          text={props.text}
          sources={props.sources}
          citeLabel={(n) => `Source ${n}`}
          expanded={open.value}
          onCite={openCard}
          idPrefix={props.idPrefix}
        />
      </div>
      {props.sources.length > 0 && (
        <ol class="citations" aria-label="Sources">
          {props.sources.map((s) => (
            <li key={s.rank}>
              <details
                class="citation"
                id={`${props.idPrefix}${s.rank}`}
                data-rank={s.rank}
                data-type={s.dataSourceType}
                open={open.value.includes(s.rank)}
                onToggle={(e) => {
                  const now = e.currentTarget.open;
                  const has = open.value.includes(s.rank);
                  if (now && !has) open.value = [...open.value, s.rank];
                  else if (!now && has) open.value = open.value.filter((n) => n !== s.rank);
                }}
              >
                <summary>
                  <span class="rank">{s.rank}</span>
                  <span class="citation-title">{s.title || s.dataSourceName}</span>
                  <span class="muted">
                    {s.dataSourceType === "correction" ? " · your correction" : ` · ${s.dataSourceName}`} ·
                    score {s.score.toFixed(2)}
                  </span>
                </summary>
                {/* The body only once opened: a long transcript holds hundreds of closed cards. */}
                {open.value.includes(s.rank) && <p class="snippet">{s.content}</p>}
                {open.value.includes(s.rank) && /^https?:\/\//.test(s.sourceUrl) && (
                  <a href={s.sourceUrl} target="_blank" rel="noopener noreferrer">
                    Open the source
                  </a>
                )}
              </details>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
