// The API's field errors (`details.fields`, zod's words) as sentences an owner can act on: one table
// for every form, by the field's name (indexes dropped: `allowedOrigins.2` → `allowedOrigins`).

type Kind = "empty" | "long" | "small" | "big" | "many" | "choice" | "type" | "other";

/** Sentences by field and kind; `{n}` is the limit the API named. */
const SENTENCES: Record<string, Partial<Record<Kind, string>>> = {
  name: { empty: "Give it a name.", long: "Keep the name to {n} characters or fewer." },
  "source.name": { empty: "Give the source a name." },
  "agent.name": { empty: "Give the assistant a name." },
  "key.name": { empty: "Give the key a name." },
  email: { other: "Enter an e-mail address like name@example.com." },
  password: { empty: "Enter your password." },
  fallbackMessage: { empty: "Write what the assistant says when it cannot answer." },
  suggestedQuestions: {
    empty: "Remove the empty line or write a question.",
    many: "Keep to {n} suggested questions.",
    long: "Keep each suggested question to {n} characters or fewer.",
  },
  "retrieval.topK": { small: "Read at least {n} passage.", big: "Read at most {n} passages." },
  "retrieval.minScore": { small: "Use a number from 0 to 1.", big: "Use a number from 0 to 1." },
  model: { other: "Choose a model from the list." },
  "theme.primaryColor": { other: "Use a hex colour like #2563eb." },
  allowedOrigins: {
    other: "Use a site like https://www.example.com or example.com, without a path.",
    many: "Allow at most {n} sites.",
  },
  origin: { other: "Use a site like https://www.example.com or example.com, without a path." },
  "handoff.url": { other: "Use a link starting with https:// or mailto:." },
  "config.url": { other: "Use a web address like https://docs.example.com/." },
  "config.maxPages": { small: "Read at least {n} page.", big: "Read at most {n} pages." },
  "config.maxDepth": { small: "Use a link depth of at least {n}.", big: "Follow links at most {n} deep." },
  "config.token": { empty: "Paste the Notion integration's secret." },
  "config.entries.title": { empty: "Give the entry a title." },
  "config.entries.content": { empty: "Write the entry's text." },
  // One entry of a text source, edited on its own (`PUT …/entries/{key}/`).
  "source.title": { empty: "Give the entry a title.", long: "Keep the title to {n} characters or fewer." },
  "source.content": { empty: "Write the entry's text." },
  query: { empty: "Write a question to search for." },
  question: { empty: "Write the question." },
  answer: { empty: "Write the answer." },
  files: { empty: "Choose at least one file." },
};

const GENERIC: Record<Kind, string> = {
  empty: "Fill this in.",
  long: "Keep this to {n} characters or fewer.",
  small: "Use a number of at least {n}.",
  big: "Use a number no larger than {n}.",
  many: "Use at most {n} items.",
  choice: "Choose one of the options.",
  type: "Enter a value of the right kind.",
  other: "Check this value.",
};

function classify(raw: string): { kind: Kind; n: string } {
  const n = /(\d+(?:\.\d+)?)/.exec(raw)?.[1] ?? "";
  if (/expected string to have >=1 characters|must not be (empty|blank)|required/i.test(raw))
    return { kind: "empty", n };
  if (/too big: expected string/i.test(raw)) return { kind: "long", n };
  if (/too big: expected array/i.test(raw)) return { kind: "many", n };
  if (/too small: expected number/i.test(raw)) return { kind: "small", n };
  if (/too big: expected number/i.test(raw)) return { kind: "big", n };
  if (/invalid option/i.test(raw)) return { kind: "choice", n };
  if (/expected (number|string|boolean|array|object), received/i.test(raw)) return { kind: "type", n };
  return { kind: "other", n };
}

/**
 * A sentence for one API message about `field`; `form` names what the form edits ("source",
 * "agent", "key") for sentences like "Give the source a name.".
 */
export function fieldSentence(field: string, raw: string, form = ""): string {
  const key = field.replace(/\.\d+(?=\.|$)/g, "");
  const { kind, n } = classify(raw);
  // A server's own sentence (starts upper-case) is already plain; zod's "Invalid URL" and
  // "Invalid email address" are not, and get the field's sentence.
  if (kind === "other" && /^[A-Z]/.test(raw) && !/^Invalid /.test(raw)) return raw;
  const sentence = SENTENCES[`${form}.${key}`]?.[kind] ?? SENTENCES[key]?.[kind] ?? GENERIC[kind];
  return sentence.replace("{n}", n);
}

/** What a request path edits, for `fieldSentence`'s `form`. */
export function formOf(path: string): string {
  if (path.includes("/api-keys/")) return "key";
  if (path.includes("/data-sources/")) return "source";
  if (path.includes("/agents/")) return "agent";
  return "";
}

/** "1 document", "2 documents". */
export function counted(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
