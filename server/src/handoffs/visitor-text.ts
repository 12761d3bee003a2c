/** What a visitor types, made safe to forward by e-mail and webhook. */

/** Lone surrogates become U+FFFD (issue #49): they reached the webhook and e-mail as is. */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** A visitor's field on one line: CR, LF and other control or separator characters become spaces. */
export function oneLine(text: string): string {
  return text.replace(CONTROL, " ").replace(/ {2,}/g, " ").trim();
}
