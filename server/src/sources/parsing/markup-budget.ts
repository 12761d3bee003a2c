import { Parser } from "htmlparser2";
import { ParseError } from "../documents.ts";

/** Deeper nesting than this is refused: 990 levels still parse in about 0.2 s; hostile pages go to millions. */
export const HTML_MAX_DEPTH = 1_000;
/** More elements than this in one HTML document is refused (a large manual page holds tens of thousands). */
export const HTML_MAX_ELEMENTS = 250_000;

/** Counts the open elements and the nesting of markup as a parser streams it, against a budget. */
export class ElementBudget {
  private depth = 0;
  private elements = 0;

  constructor(
    private readonly maxDepth: number,
    private readonly maxElements: number,
  ) {}

  /** An element opened; throws ParseError naming the budget the document went past. */
  open(): void {
    this.depth++;
    this.elements++;
    if (this.depth > this.maxDepth)
      throw new ParseError(`the document nests elements deeper than ${this.maxDepth} levels`);
    if (this.elements > this.maxElements)
      throw new ParseError(`the document has more than ${this.maxElements} elements`);
  }

  close(): void {
    this.depth--;
  }
}

/**
 * Streams the markup once, counting open elements and nesting, before it is built into a DOM: 200,000
 * nested `<div>` (2.2 MB) held a parse thread 97 s and then overflowed the stack; a million `<p>` took
 * 29 s and 1 GB (issue #49). Throws ParseError naming the budget the document went past.
 */
export function checkMarkupBudget(html: string): void {
  const budget = new ElementBudget(HTML_MAX_DEPTH, HTML_MAX_ELEMENTS);
  const parser = new Parser(
    {
      onopentag() {
        budget.open();
      },
      onclosetag() {
        budget.close();
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
}
