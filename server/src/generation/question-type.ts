/**
 * What kind of answer a question asks for, read from its question words in the languages Lore
 * answers in (docs/operations.md, "Languages"). A number for "how many", a date for "when", a
 * person for "who", a place for "where": the answerer prefers sentences that carry one.
 */
export type AnswerType = "number" | "date" | "person" | "place" | "other";

// Latin and Cyrillic question words, matched as whole words (\b knows only ASCII letters: "où", "kaç").
const word = (alternatives: string) => String.raw`(?<![\p{L}\p{N}])(?:${alternatives})(?![\p{L}\p{N}])`;

// Tried on the lowercased question in this order; the first type whose rule matches wins. Scripts
// without word spaces (zh, ja, ko) match as substrings; Arabic "من" (who, also "from") only first.
const RULES: readonly (readonly [AnswerType, RegExp])[] = [
  [
    "number",
    new RegExp(
      [
        word(
          "how (?:many|much|long|old|far|large|big|tall|high|deep|often)|what (?:percentage|percent|number|amount)",
        ),
        word(
          "cu[aá]nt[oa]s?|quant[oa]s?|combien|wie (?:viele?|lange|alt|weit|gro[sß]|hoch|oft)|hoeveel|ile|kaç|сколько",
        ),
        String.raw`(?<!\p{L})كم\s|कितन|多少|几|いくつ|何人|何個|몇|얼마`,
      ].join("|"),
      "u",
    ),
  ],
  [
    "date",
    new RegExp(
      [
        word("when|(?:what|which) (?:year|date|day|month|century|decade|time|period|era)"),
        word(
          "cu[aá]ndo|quand[oa]?|wann|wanneer|kiedy|ne zaman|когда|в каком году|(?:qu[eé]|quel(?:le)?|welche[mnrs]?|in welchem) (?:a[nñ]o|ann[eé]e|jahr|siglo|si[eè]cle|jahrhundert|ano|anno|fecha|date|datum)",
        ),
        "متى|في أي عام|कब|किस वर्ष|什么时候|何时|哪一年|哪年|いつ|何年|언제",
      ].join("|"),
      "u",
    ),
  ],
  [
    "person",
    new RegExp(
      [
        word("who(?:m|se)?|qui[eé]n(?:es)?|qui|quem|chi|wer|wem|wen|wessen|kto|kim|кто|кого|чей"),
        `${word("wie")}(?= (?:is|was|heeft|zijn|waren))`,
        String.raw`^\s*من\s|कौन|किसने|谁|誰|누구`,
      ].join("|"),
      "u",
    ),
  ],
  [
    "place",
    new RegExp(
      [
        word("where|(?:what|which) (?:city|country|state|place|region|town|continent|location)"),
        word("d[oó]nde|adónde|où|onde|dove|wo(?:her|hin)?|waar|gdzie|nerede|где|куда|откуда"),
        "أين|कहाँ|कहां|哪里|哪儿|どこ|어디",
      ].join("|"),
      "u",
    ),
  ],
];

export function detectAnswerType(question: string): AnswerType {
  const q = question.toLowerCase();
  for (const [type, rule] of RULES) if (rule.test(q)) return type;
  return "other";
}

const NUMBER_WORDS =
  /\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|hundreds|thousand|thousands|million|millions|billion|billions|dozen|dozens|half|percent)\b/i;
const MONTHS =
  /\b(?:January|February|March|April|May|June|July|August|September|October|November|December|spring|summer|autumn|fall|winter)\b/;

/** Whether a sentence carries the kind of answer asked for (digits of any script count as a number). */
export function matchesAnswerType(
  sentence: string,
  type: AnswerType,
  newProperNames: (sentence: string) => number,
): boolean {
  switch (type) {
    case "number":
      return /\p{Nd}/u.test(sentence) || NUMBER_WORDS.test(sentence);
    case "date":
      return (
        /(?<!\p{Nd})\p{Nd}{3,4}(?!\p{Nd})|\b\d{1,2}(?:st|nd|rd|th) century\b/iu.test(sentence) ||
        MONTHS.test(sentence)
      );
    case "person":
    case "place":
      return newProperNames(sentence) > 0;
    case "other":
      return false;
    default:
      return type satisfies never;
  }
}

// "What information is sent?", "What does it include?": the answer is a list of things.
const ENUMERATION =
  /\bwhat (?:info|information|data|details|features|options|settings|kinds?|types?|things|apps|devices|browsers|platforms|languages|countries)\b|\bwhat (?:does|do|is|are) .*\b(?:include|contain|collect|cover|support|offer)\b|\b(?:which|what) .*\b(?:are (?:supported|included|available|covered))\b/;

// "How do I …" beyond English: the question word with a first-person or modal verb, or the script's own "how".
const PROCEDURE = new RegExp(
  [
    word(
      "c[oó]mo (?:puedo|se|hago|\\p{L}+o)|comment (?:puis-je|faire|\\p{L}+-je|est-ce que je|\\p{L}+(?:er|ir|re))|como (?:posso|fa[cç]o|\\p{L}+o)|come (?:posso|faccio|si)|wie (?:kann|k[oö]nnen|muss|soll|\\p{L}+e) (?:ich|man|wir)|hoe (?:kan|moet) (?:ik|je)|как (?:мне|можно|\\p{L}+ть)",
    ),
    "كيف|कैसे|怎么|如何|どうやって|どうすれば|어떻게",
  ].join("|"),
  "u",
);

/** What kind of reply the question wants, beyond the type of its answer. */
export type QuestionShape = "procedure" | "enumeration" | "yesno" | "contact" | "other";

export function detectQuestionShape(question: string): QuestionShape {
  const q = question.toLowerCase();
  if (
    /\b(?:who|where)\b.*\b(?:contact|tell|report|ask|email|write|reach|send)\b|\b(?:contact|email address|get in touch|reach (?:you|support))\b/.test(
      q,
    )
  )
    return "contact";
  if (
    /\bhow (?:do|can|could|should|would) (?:i|you|we)\b|\bhow to\b|\b(?:steps|instructions) (?:to|for)\b|\bwhat (?:do|should) i do\b/.test(
      q,
    ) ||
    PROCEDURE.test(q)
  )
    return "procedure";
  if (ENUMERATION.test(q)) return "enumeration";
  if (
    /^\s*(?:can|could|does|do|is|are|will|would|should|did|has|have|am|was|were)\b|,\s*(?:can|could|does|do|is|are|will)\b[^,]*\?\s*$/.test(
      q,
    )
  )
    return "yesno";
  return "other";
}
