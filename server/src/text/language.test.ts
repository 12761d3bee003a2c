import { describe, expect, it } from "vitest";
import { DEFAULT_FALLBACK } from "../agents/agents-service.ts";
import { analyze, tokenize } from "../retrieval/text-analysis.ts";
import { readsAsEnglish, stemHindi } from "./analyzers.ts";
import { detectLanguage, languages } from "./language.ts";
import { fallbackMessages, localizeFallback } from "./messages.ts";
import { stemWord, tokenizeTerms, tokenizeTermsIn, tokenizeWords } from "./normalize.ts";
import { foldText } from "./segment.ts";
import { splitSentences } from "./sentences.ts";

describe("detectLanguage", () => {
  it.each([
    ["How do I reset my password?", "en"],
    ["¿Cómo restablezco mi contraseña?", "es"],
    ["Wo finde ich meine Rechnungen?", "de"],
    ["Comment changer mon mot de passe ?", "fr"],
    ["Как изменить пароль?", "ru"],
    ["كيف أغير كلمة المرور؟", "ar"],
    ["मैं अपना पासवर्ड कैसे बदलूं?", "hi"],
    ["我忘记密码了怎么办？", "zh"],
    ["パスワードを忘れました", "ja"],
    ["비밀번호를 잊어버렸어요", "ko"],
  ])("reads %s as %s", (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it("cannot tell from digits and punctuation alone", () => {
    expect(detectLanguage("42 ?!")).toBeNull();
  });
});

describe("foldText", () => {
  it("unifies compatibility forms, case and accents", () => {
    expect(foldText("ＡＢＣ１２３ Café ﬁne")).toBe("abc123 cafe fine");
  });

  it("keeps marks that are part of the letter", () => {
    expect(foldText("हिंदी")).toBe("हिंदी");
    expect(foldText("が")).toBe("が");
    expect(foldText("Новый ёж")).toBe("новый еж");
  });
});

describe("tokenize", () => {
  it("cuts Chinese, Japanese and Thai into dictionary words", () => {
    expect(tokenize("我忘记密码了")).toEqual(["我", "忘记", "密码", "了"]);
    expect(tokenize("パスワードを忘れた")).toEqual(["パスワード", "を", "忘れ", "た"]);
    expect(tokenize("ฉันลืมรหัสผ่าน")).toEqual(["ฉัน", "ลืม", "รหัส", "ผ่าน"]);
  });

  it("keeps Hindi vowel signs inside the word", () => {
    expect(tokenize("किताबें पढ़ता")).toHaveLength(2);
  });
});

describe("analyze", () => {
  it("stems Russian inflections onto one term", () => {
    expect(analyze("книгами")).toEqual(analyze("книги"));
  });

  it("strips Arabic articles and vowel marks", () => {
    expect(analyze("الْكِتَابُ")).toEqual(analyze("كتاب"));
  });

  it("stems Hindi plurals onto the singular", () => {
    expect(stemHindi("किताबें")).toBe(stemHindi("किताब"));
  });

  it("drops Chinese and Japanese function words", () => {
    expect(analyze("我忘记了密码")).toEqual(["忘记", "密码"]);
    expect(analyze("パスワードを忘れた")).toEqual(["パスワード", "忘れ"]);
  });
});

describe("tokenizeWords and tokenizeTerms", () => {
  it("segment Chinese for the answerer and read full-width digits as ASCII", () => {
    expect(tokenizeWords("运费满２００元")).toContain("200");
    expect(tokenizeTerms("你们支持哪些支付方式？")).toContain("支付");
  });

  it("drop the stop words of a Spanish or German question, even without accents", () => {
    expect(tokenizeTerms("Wo finde ich meine Rechnungen?")).toEqual(["find", "rechnungen"]);
    expect(tokenizeTerms("¿Cómo restablezco mi contraseña?")).toEqual(["restablezco", "contraseña"]);
  });

  it("keep an English sentence with a foreign word as it was", () => {
    expect(tokenizeTerms("Die Hard is a film.")).toEqual(["die", "hard", "film"]);
  });

  it("stem Russian words by the Russian rules", () => {
    expect(stemWord("книгами")).toBe(stemWord("книги"));
  });

  it("drop Hindi question words, which no answer contains", () => {
    expect(tokenizeTerms("रिफंड कब मिलेगा?")).not.toContain("कब");
  });
});

describe("tokenizeTermsIn", () => {
  it("follows a known language's stop words and Snowball stemmer", () => {
    expect(tokenizeTermsIn("Wo sind die Sächsischen Gärten?", "de")).toEqual(
      tokenizeTermsIn("der Sächsische Garten", "de"),
    );
    expect(tokenizeTermsIn("¿Cuándo llegan los pedidos?", "es")).toEqual(
      tokenizeTermsIn("llega el pedido", "es"),
    );
  });

  it("is tokenizeTerms for English or an unknown language", () => {
    expect(tokenizeTermsIn("What are the rivers?", null)).toEqual(tokenizeTerms("What are the rivers?"));
    expect(tokenizeTermsIn("What are the rivers?", "en")).toEqual(["river"]);
  });
});

describe("splitSentences", () => {
  it("splits at 。！？ without spaces", () => {
    expect(splitSentences("第一句。第二句！第三句？").map((s) => s.text)).toEqual([
      "第一句。",
      "第二句！",
      "第三句？",
    ]);
  });

  it("keeps a German ordinal inside its sentence", () => {
    expect(
      splitSentences("Tesla starb am 7. Januar 1943 in New York. Er war 86.").map((s) => s.text),
    ).toEqual(["Tesla starb am 7. Januar 1943 in New York.", "Er war 86."]);
  });

  it("splits at the Devanagari danda and the Arabic question mark", () => {
    expect(splitSentences("यह पहला है। यह दूसरा है।").map((s) => s.text)).toEqual(["यह पहला है।", "यह दूसरा है।"]);
    expect(splitSentences("هل هذا سؤال؟ نعم.").map((s) => s.text)).toEqual(["هل هذا سؤال؟", "نعم."]);
  });

  it("keeps a Hindi initial or abbreviation inside its sentence where the text ends sentences with the danda", () => {
    const text = "यह शुरू हुआ। इसका अनुवाद जॉन सी. मेसेंजर ने किया। डॉ. राजेंद्र आए।";
    expect(splitSentences(text).map((s) => s.text)).toEqual([
      "यह शुरू हुआ।",
      "इसका अनुवाद जॉन सी. मेसेंजर ने किया।",
      "डॉ. राजेंद्र आए।",
    ]);
  });
});

describe("fallback messages", () => {
  it("translate the agent default into every detected language", () => {
    expect(fallbackMessages.en).toBe(DEFAULT_FALLBACK);
    expect(Object.keys(fallbackMessages).sort()).toEqual([...languages].sort());
  });

  it("follow the question's language only for the untouched default", () => {
    expect(localizeFallback(DEFAULT_FALLBACK, "¿Dónde está mi pedido?")).toBe(fallbackMessages.es);
    expect(localizeFallback(DEFAULT_FALLBACK, "42")).toBe(fallbackMessages.en);
    expect(localizeFallback("Sorry!", "¿Dónde está mi pedido?")).toBe("Sorry!");
  });
});

describe("readsAsEnglish", () => {
  const english = new Set(["how", "do", "i", "it", "in", "the", "is"]);
  it("tells English questions from other languages' by their function words", () => {
    expect(readsAsEnglish(["how", "do", "i", "reset", "it"], english)).toBe(true);
    expect(readsAsEnglish(["wann", "kommt", "der", "bericht", "in", "berlin"], english)).toBe(false);
    expect(readsAsEnglish(["jahresbericht"], english)).toBe(false);
    expect(readsAsEnglish(["как", "дела"], english)).toBe(false);
  });
});
