import type { Citation } from "@lore/shared";
import type { VNode } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ChatMessage } from "../state/types.ts";
import { useWidget } from "./context.ts";

type Extras = typeof import("./extras.tsx");

let loaded: Extras | undefined;
let loading: Promise<Extras | undefined> | undefined;
// The shadow roots (by their adoptStyles) that already have the chunk's CSS.
const styled = new WeakSet<(css: string) => void>();

/** Fetches the extras chunk once; resolves undefined if that failed (the next call tries again). */
export function loadExtras(): Promise<Extras | undefined> {
  loading ??= import("./extras.tsx").then(
    (module) => (loaded = module),
    () => (loading = undefined),
  );
  return loading;
}

/** The extras chunk, fetched on first use; undefined until it arrives. */
function useExtras(): Extras | undefined {
  const { adoptStyles } = useWidget();
  const [forms, setExtras] = useState(loaded);
  useEffect(() => {
    if (!forms) loadExtras().then(setExtras);
  }, [forms]);
  if (forms && adoptStyles && !styled.has(adoptStyles)) {
    styled.add(adoptStyles);
    adoptStyles(forms.css);
  }
  return forms;
}

export function LazyContactForm({ id }: { id: string }) {
  const forms = useExtras();
  return forms ? <forms.ContactForm id={id} /> : null;
}

/** Answers longer than this (about 100 words) may fold; shorter ones never load the fold. */
export const FOLD_CHARS = 600;

/** A long answer folded by the extras chunk; shown whole until the chunk arrives. */
export function LazyFold(props: { text: string; render: (text: string) => VNode }) {
  const extras = useExtras();
  return extras ? <extras.FoldedAnswer {...props} /> : props.render(props.text);
}

export function LazyUncertainSources(props: { sources: readonly Citation[]; answer: string }) {
  const extras = useExtras();
  return extras ? <extras.UncertainSources {...props} /> : null;
}

export function LazyFeedbackReasons(props: { message: ChatMessage; onDone: () => void }) {
  const forms = useExtras();
  return forms ? <forms.FeedbackReasons {...props} /> : null;
}

/**
 * An opened source card's snippet. The first one waits for the chunk, so its card is scrolled back
 * into view once the snippet is there (a citation marker scrolls to the card before).
 */
export function LazySnippet(props: { source: Citation; answer: string }) {
  const forms = useExtras();
  const waited = useRef(!forms);
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!forms || !waited.current) return;
    waited.current = false;
    const card = ref.current?.closest("li");
    // The focused element inside the widget's shadow root (or the document, outside one).
    if (card?.contains((card.getRootNode() as Document | ShadowRoot).activeElement)) {
      card.scrollIntoView?.({ block: "nearest" });
    }
  }, [forms]);
  return forms ? <forms.Snippet {...props} pRef={ref} /> : null;
}

/** "Contact us" under an answer that didn't help, in the answer's language. */
export function LazyWayOut(props: { lang?: string | null | undefined }) {
  const extras = useExtras();
  return extras ? <extras.WayOut {...props} /> : null;
}

export function LazyGreeting(props: { launcher: HTMLButtonElement; widgetId: string }) {
  const extras = useExtras();
  return extras ? <extras.Greeting {...props} /> : null;
}
