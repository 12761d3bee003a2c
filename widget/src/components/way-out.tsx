import { useEffect, useState } from "preact/hooks";
import { en, type Table } from "../translate.ts";
import { ContactAction } from "./contact-action.tsx";
import { useWidget } from "./context.ts";

/**
 * The way out under an answer that didn't help: "Contact us", as the agent offers it, in the answer's
 * language (the `done` event's `language`) when that is not the page's: a Spanish answer on an
 * English page says "Contáctanos". The other languages' strings come with their chunk (i18n.ts).
 */
export function WayOut({ lang }: { lang?: string | null | undefined }) {
  const { store, i18n } = useWidget();
  const [table, setTable] = useState<Table>();
  const foreign = lang && lang !== i18n.lang ? lang : null;
  useEffect(() => {
    if (foreign)
      import("../i18n.ts").then(
        (m) => setTable(m.tables[foreign] ?? en),
        () => {}, // Unreachable chunk: the page's language it is.
      );
  }, [foreign]);
  const mode = store.config.value?.handoff?.mode;
  if (!mode || mode === "none") return null;
  return (
    <p class="way-out" data-lore="way-out" lang={table && foreign ? foreign : undefined} dir="auto">
      <ContactAction label={table?.contactUs} />
    </p>
  );
}
