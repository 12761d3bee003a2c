import { describe, expect, it } from "vitest";
import { createTranslator, waitText } from "./i18n.ts";

describe("waitText", () => {
  it("says a wait of a minute or more in minutes, as people talk", () => {
    const en = createTranslator("en");
    expect(waitText(en, 3332)).toBe(
      "You're sending messages too quickly. You can ask again in about 56 minutes.",
    );
    expect(waitText(en, 3300)).toContain("in about 55 minutes.");
    expect(waitText(en, 60)).toContain("in about 1 minute.");
    expect(waitText(en, 3332)).not.toMatch(/\d{3,} s/);
  });

  it("keeps seconds under a minute", () => {
    expect(waitText(createTranslator("en"), 42)).toContain("ask again in 42 s.");
  });

  it("words minutes in every language, with that language's unit and plural", () => {
    const expected: Record<string, string> = {
      en: "55 minutes",
      de: "55 Minuten",
      fr: "55 minutes",
      es: "55 minutos",
      ru: "55 минут",
      ja: "55 分",
      ko: "55분",
    };
    for (const [lang, minutes] of Object.entries(expected)) {
      const text = waitText(createTranslator(lang), 3300);
      expect(text, lang).toContain(minutes);
      expect(text, lang).not.toContain("{m}");
    }
    for (const lang of ["ar", "he", "pt", "it", "hi", "zh"]) {
      const text = waitText(createTranslator(lang), 3300);
      expect(text, lang).not.toMatch(/\{m\}|3300/);
      expect(text, lang).not.toBe(waitText(createTranslator(lang), 30));
    }
  });
});
