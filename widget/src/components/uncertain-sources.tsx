import type { Citation } from "@lore/shared";
import { safeHttpUrl } from "../markdown.ts";
import { useWidget } from "./context.ts";
// Its English strings come with this chunk.
import "./extras-en.ts";

/** An uncertain answer's articles, as plain links to read. */
export function UncertainSources({ sources }: { sources: readonly Citation[] }) {
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
            const title = s.title || s.dataSourceName;
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
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
