import { Parser } from "htmlparser2";
import { ParseError } from "../documents.ts";

/** Deeper nesting than this is refused: 990 levels still parse in about 0.2 s; hostile pages go to millions. */
export const HTML_MAX_DEPTH = 1_000;
/** More elements than this in one HTML document is refused (a large manual page holds tens of thousands). */
export const HTML_MAX_ELEMENTS = 250_000;

/**
 * Streams the markup once, counting open elements and nesting, before it is built into a DOM: 200,000
 * nested `<div>` (2.2 MB) held a parse thread 97 s and then overflowed the stack; a million `<p>` took
 * 29 s and 1 GB (issue #49). Throws ParseError naming the budget the document went past.
 */
export function checkMarkupBudget(html: string): void {
  let depth = 0;
  let elements = 0;
  const parser = new Parser(
    {
      onopentag() {
        depth++;
        elements++;
        if (depth > HTML_MAX_DEPTH)
          throw new ParseError(`the document nests elements deeper than ${HTML_MAX_DEPTH} levels`);
        if (elements > HTML_MAX_ELEMENTS)
          throw new ParseError(`the document has more than ${HTML_MAX_ELEMENTS} elements`);
      },
      onclosetag() {
        depth--;
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
}
