// The widget's strings in the panel chunk: English, and the code that speaks any language. The
// other languages' tables (i18n.ts) are a chunk of their own, fetched only by pages in another
// language, so English pages don't download them.
import type { extrasEn } from "./components/extras-en.ts";

const panelEn = {
  openChat: "Open chat",
  closeChat: "Close chat",
  close: "Close",
  newConversation: "New conversation",
  inputLabel: "Your question",
  placeholder: "Ask a question…",
  send: "Send",
  stop: "Stop",
  suggestions: "Suggested questions",
  conversation: "Conversation",
  you: "You",
  assistant: "Assistant",
  sources: "Sources",
  openSource: "Open source",
  sourceMarker: "Show source {n}",
  copy: "Copy answer",
  // "in about N minutes" with the unit declined after the preposition, where `Intl` only gives the
  // nominative: the one, few and many forms, space-separated (ru, uk, pl); "-": `Intl`'s unit.
  minuteForms: "-",
  copied: "Copied",
  helpful: "Helpful",
  notHelpful: "Not helpful",
  feedbackThanks: "Thanks for your feedback",
  thinking: "Thinking…",
  loading: "Loading…",
  stopped: "Stopped",
  failed: "Not answered",
  retry: "Try again",
  rateLimited: "You're sending messages too quickly. You can ask again in {s} s.",
  rateLimitedMinutes: "You're sending messages too quickly. You can ask again in about {m}.",
  processing: "This assistant is still learning. Please try again shortly.",
  originRefused: "This chat isn't enabled on this site.",
  notFound: "This chat isn't available.",
  offline: "You seem to be offline. Check your connection and try again.",
  unreachable: "Can't reach the assistant right now. Please try again in a moment.",
  upstream: "The answer service is unavailable right now. Please try again.",
  server: "Something went wrong. Please try again.",
  interrupted: "The answer was interrupted. Please try again.",
  tooLong: "That message is too long. Please shorten it.",
  feedbackFailed: "Your feedback couldn't be sent.",
  contactUs: "Contact us",
  newMessage: "New message",
} as const;

export type MessageKey = keyof typeof panelEn | keyof typeof extrasEn;
export type Table = Record<MessageKey, string>;
/**
 * English. What only the extras chunk shows is in that chunk (components/extras-en.ts), which adds
 * it here as it loads: nothing shows those strings before.
 */
export const en = panelEn as Table;

/** Every language i18n.ts has a table for (a test checks the two agree). */
export const languages = [
  "en",
  "ar",
  "he",
  "es",
  "de",
  "fr",
  "pt",
  "it",
  "nl",
  "pl",
  "tr",
  "ru",
  "uk",
  "hi",
  "zh",
  "ja",
  "ko",
];
const rtl = new Set(["ar", "he", "fa", "ur"]);

export interface Translator {
  lang: string;
  dir: "ltr" | "rtl";
  t: (key: MessageKey, vars?: Record<string, string | number>) => string;
}

/** Picks the first supported language among the explicit option, the page's lang and the browser's. */
export function resolveLanguage(candidates: ReadonlyArray<string | null | undefined>): string {
  for (const candidate of candidates) {
    const base = candidate?.toLowerCase().split(/[-_]/)[0];
    if (base && languages.includes(base)) return base;
  }
  return "en";
}

/** A translator for `lang` reading its strings from `table()` (a signal's value while they load). */
export function translatorFor(lang: string, table: () => Table): Translator {
  return {
    lang,
    dir: rtl.has(lang) ? "rtl" : "ltr",
    t: (key, vars) =>
      table()[key].replace(/\{(\w+)\}/g, (whole, name: string) => String(vars?.[name] ?? whole)),
  };
}

/**
 * How long until the visitor may ask again, as people say it: seconds under a minute, else about
 * so many minutes (the unit and its plural form from `Intl` in the widget's language, or the
 * language's own `minuteForms` where it declines the unit: "через 21 минуту", "za 1 minutę").
 */
export function waitText(i18n: Translator, seconds: number): string {
  if (seconds < 60) return i18n.t("rateLimited", { s: seconds });
  const count = Math.round(seconds / 60);
  const forms = i18n.t("minuteForms").split(" ");
  const word =
    forms[2] && forms[["one", "few", "many"].indexOf(new Intl.PluralRules(i18n.lang).select(count))];
  const minutes = word
    ? `${new Intl.NumberFormat(i18n.lang).format(count)} ${word}`
    : new Intl.NumberFormat(i18n.lang, { style: "unit", unit: "minute", unitDisplay: "long" }).format(count);
  return i18n.t("rateLimitedMinutes", { m: minutes });
}
