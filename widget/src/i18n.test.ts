import { answerLanguages } from "@lore/shared";
import { describe, expect, it } from "vitest";
import { extrasEn } from "./components/extras-en.ts";
import { createTranslator, en, type MessageKey, resolveLanguage, tables, waitText } from "./i18n.ts";
import { languages as panelLanguages } from "./translate.ts";

// Every language the server detects and answers in, plus Hebrew.
const languages = [...answerLanguages, "he"];
const placeholders = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();

describe("translations", () => {
  it("the panel knows every language the lazily loaded tables have, and no other", () => {
    expect([...panelLanguages].sort()).toEqual(Object.keys(tables).sort());
  });

  it("has every English string in every language, with the same placeholders", () => {
    for (const lang of languages) {
      const i18n = createTranslator(lang);
      expect(i18n.lang).toBe(lang);
      for (const [key, english] of Object.entries({ ...en, ...extrasEn })) {
        const text = i18n.t(key as MessageKey);
        expect(text.trim(), `${lang}.${key}`).not.toBe("");
        expect(placeholders(text), `${lang}.${key}`).toEqual(placeholders(english));
      }
    }
  });

  it("picks Dutch, Polish, Turkish and Ukrainian from a region-tagged page or browser language", () => {
    expect(resolveLanguage([undefined, "nl-BE"])).toBe("nl");
    expect(resolveLanguage([null, "", "pl-PL"])).toBe("pl");
    expect(resolveLanguage(["xx", "tr_TR"])).toBe("tr");
    expect(resolveLanguage(["UK-UA", "en-US"])).toBe("uk");
    expect(createTranslator("nl").t("send")).toBe("Versturen");
    expect(createTranslator("pl").t("sourceMarker", { n: 2 })).toBe("Pokaż źródło 2");
    expect(createTranslator("tr").t("sourceMarker", { n: 2 })).toBe("2 numaralı kaynağı göster");
    expect(createTranslator("uk").t("send")).toBe("Надіслати");
  });
});

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
    expect(waitText(createTranslator("uk"), 42)).toContain("через 42 с.");
  });

  it("words minutes in every language, with that language's unit and plural", () => {
    const expected: Record<string, string> = {
      en: "55 minutes",
      de: "55 Minuten",
      fr: "55 minutes",
      es: "55 minutos",
      nl: "over ongeveer 55 minuten",
      pl: "za mniej więcej 55 minut",
      tr: "Yaklaşık 55 dakika sonra",
      ru: "через 55 минут",
      uk: "через 55 хвилин",
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

  it("puts minutes in the case the sentence needs: declined in Polish, Ukrainian and Russian", () => {
    const cases: Array<[lang: string, minutes: number, phrase: string]> = [
      ["pl", 1, "za mniej więcej 1 minutę."],
      ["pl", 3, "za mniej więcej 3 minuty."],
      ["pl", 22, "za mniej więcej 22 minuty."],
      ["pl", 12, "za mniej więcej 12 minut."],
      ["uk", 1, "приблизно через 1 хвилину."],
      ["uk", 21, "приблизно через 21 хвилину."],
      ["uk", 23, "приблизно через 23 хвилини."],
      ["uk", 11, "приблизно через 11 хвилин."],
      ["ru", 1, "примерно через 1 минуту."],
      ["ru", 31, "примерно через 31 минуту."],
      ["ru", 4, "примерно через 4 минуты."],
      ["nl", 1, "over ongeveer 1 minuut weer"],
      ["tr", 2, "Yaklaşık 2 dakika sonra"],
    ];
    for (const [lang, minutes, phrase] of cases) {
      expect(waitText(createTranslator(lang), minutes * 60), `${lang} ${minutes}`).toContain(phrase);
    }
  });
});
