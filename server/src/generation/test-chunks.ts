import type { RetrievedChunk } from "./types.ts";

/** A retrieved chunk for tests; `index` sets ids and a descending score. */
export function makeChunk(
  index: number,
  title: string,
  text: string,
  extra: Partial<RetrievedChunk> = {},
): RetrievedChunk {
  return {
    chunkId: `chunk-${index}`,
    documentId: `doc-${index}`,
    dataSourceId: "source-1",
    dataSourceName: "Handbook",
    kind: "markdown",
    title,
    sourceUrl: null,
    text,
    score: 0.9 - index * 0.1,
    page: null,
    headingPath: [],
    ...extra,
  };
}

export const HANDBOOK = [
  makeChunk(
    0,
    "Refunds",
    "Customers can request a refund within 30 days of purchase. Refunds are issued to the original payment method. Digital downloads are not refundable once opened.",
  ),
  makeChunk(
    1,
    "Shipping",
    "Standard shipping takes 3 to 5 business days. Express shipping arrives the next business day for orders placed before 2 p.m. Shipping to Canada and Mexico costs $15.",
  ),
  makeChunk(
    2,
    "Company",
    "Acme Corp. was founded in 1998 by Dr. Jane Smith in Portland, Oregon. The company moved its headquarters to Seattle in 2010. It employs about 1,200 people.",
  ),
];
