import type { Citation } from "@lore/shared";
import { safeHttpUrl } from "../markdown.ts";
import { cleanSnippet } from "../snippet.ts";
import { useWidget } from "./context.ts";
// Its English strings come with this chunk.
import "./extras-en.ts";

/**
 * An uncertain answer's sections that may help (issue #50), one per article: "Article › Heading" as a
 * plain link, and the first lines of each that the answer does not already quote.
 */
export function UncertainSources({ sources, answer }: { sources: readonly Citation[]; answer: string }) {
  const { i18n } = useWidget();
  const seen = new Set<string>();
  const distinct = sources.filter((s) => {
    const key = s.title || s.sourceUrl;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return (
    <div class="uncertain" data-lore="uncertain">
      <p class="uncertain-note">{i18n.t("uncertain")}</p>
      {distinct.length > 0 && (
        <ul>
          {distinct.map((s) => {
            const href = safeHttpUrl(s.sourceUrl);
            const title = [s.title || s.dataSourceName, ...(s.headingPath ?? [])].join(" › ");
            const lines = answer.includes(`[${s.rank}]`) ? "" : cleanSnippet(s.content);
            return (
              <li key={s.rank}>
                {href ? (
                  <a
                    href={href}
                    target="_blank"
                    rel="noopener noreferrer nofollow"
                    data-lore="uncertain-link"
                  >
                    {title}
                  </a>
                ) : (
                  title
                )}
                {lines && (
                  <p class="uncertain-lines" dir="auto">
                    {lines}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
