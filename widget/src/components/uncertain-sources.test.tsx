import { describe, expect, it } from "vitest";
import { citation } from "../test-support.ts";
import { renderInWidget } from "./render-support.tsx";
import { UncertainSources } from "./uncertain-sources.tsx";

describe("UncertainSources", () => {
  it("lists each article's section that may help, with the first lines of those the answer does not quote", () => {
    const sources = [
      citation(1, { title: "Shipping", content: "Standard shipping takes 5 days." }),
      citation(2, {
        title: "Sync & Backup",
        headingPath: ["What if neither device has a camera?"],
        content: "Scanning a **QR code** is not required. Instead, type the code.",
      }),
      citation(3, {
        title: "Customs",
        sourceUrl: "",
        content: "Parcels leaving the EU may be charged fees.",
      }),
    ];
    const { container } = renderInWidget(
      <UncertainSources sources={sources} answer="Standard shipping takes 5 days. [1]" />,
    );
    const items = [...container.querySelectorAll("li")];
    expect(items.map((li) => li.querySelector("a")?.textContent ?? li.firstChild?.textContent)).toEqual([
      "Shipping",
      "Sync & Backup › What if neither device has a camera?",
      "Customs",
    ]);
    // The quoted article is not repeated; the others show their first lines as plain text.
    expect(items.map((li) => li.querySelector(".uncertain-lines")?.textContent ?? null)).toEqual([
      null,
      "Scanning a QR code is not required. Instead, type the code.",
      "Parcels leaving the EU may be charged fees.",
    ]);
  });
});
