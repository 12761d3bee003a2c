import { describe, expect, it } from "vitest";
import { cleanSnippet, findQuote } from "./snippet.ts";

const marked = (snippet: string, answer: string, rank: number) => {
  const span = findQuote(snippet, answer, rank);
  return span && snippet.slice(...span);
};

describe("cleanSnippet", () => {
  it("drops emphasis, heading and quote marks, link targets and table pipes, keeping list markers", () => {
    expect(
      cleanSnippet(
        "## Refunds\n\n**Refunds** take *five* days, see [the policy](https://a.test/p).\n> Quoted `code`\n\n- one\n* two\n2 * 3\n\n| Plan | Price |\n|:---|---:|\n| Pro | $10 |",
      ),
    ).toBe(
      "Refunds\n\nRefunds take five days, see the policy.\nQuoted code\n\n- one\n* two\n2 * 3\n\nPlan · Price\nPro · $10",
    );
  });
});

describe("findQuote", () => {
  const snippet =
    "Our office is in Berlin. Every employee receives 27 days of paid vacation per year. Unused days expire on March 31.";

  it("marks the longest run of words the answer quoted before its [n] marker, ignoring case and spacing", () => {
    expect(
      marked(
        snippet,
        "Good question! According to the handbook, every  employee receives 27 days of paid vacation [1].",
        1,
      ),
    ).toBe("Every employee receives 27 days of paid vacation");
  });

  it("reads only the text cited with this source's number, including grouped and adjacent markers", () => {
    const answer =
      "Unused days expire on March 31 [2]. Every employee receives 27 days of paid leave [1][3]. The office is in Berlin [4, 1].";
    expect(marked(snippet, answer, 2)).toBe("Unused days expire on March 31");
    expect(marked(snippet, answer, 3)).toBe("Every employee receives 27 days of paid");
    expect(marked(snippet, answer, 1)).toBe("Every employee receives 27 days of paid");
    expect(marked(snippet, answer, 5)).toBeNull();
  });

  it("falls back to the sentence sharing the most words when the answer paraphrases", () => {
    expect(marked(snippet, "Vacation days unused by March expire [1].", 1)).toBe(
      "Unused days expire on March 31.",
    );
  });

  it("marks nothing when the overlap is weak", () => {
    expect(marked(snippet, "Employees work in teams [1].", 1)).toBeNull();
    expect(marked(snippet, "No markers here.", 1)).toBeNull();
  });

  it("works on right-to-left text", () => {
    const hebrew = "המשרד נמצא בברלין. כל עובד מקבל עשרים ושבעה ימי חופשה בשנה.";
    expect(marked(hebrew, "לפי המדריך, כל עובד מקבל עשרים ושבעה ימי חופשה [1].", 1)).toBe(
      "כל עובד מקבל עשרים ושבעה ימי חופשה",
    );
  });
});
