import { describe, expect, it } from "vitest";
import { cognateCandidates } from "./cognates.ts";
import { Dictionary, type DictionaryTable } from "./dictionary.ts";
import {
  dictionaryKeys,
  translateQuestion,
  translationCertainty,
  type WordStatus,
} from "./translate-question.ts";

// The documents' vocabulary, as the index would answer for each word.
const english = new Set([
  "cancel",
  "subscription",
  "invoice",
  "bill",
  "order",
  "password",
  "forget",
  "specification",
  "denver",
  "1990",
  "way",
  "method",
]);
const englishStops = new Set(["the", "to", "a", "of", "how"]);
const status = (word: string): WordStatus =>
  englishStops.has(word) ? "stop" : english.has(word) ? "known" : "unknown";

describe("translateQuestion", () => {
  const spanish = new Dictionary("es", "test", "test", [
    ["suscripción", ["subscription"]],
    ["factura", ["invoice", "bill", "account"]],
    ["pedido", ["request", "order"]],
    ["tarjeta de", ["card of"]],
  ]);

  it("keeps words the documents hold and replaces the others by their first senses the documents hold", () => {
    const t = translateQuestion("¿Dónde está la factura del pedido en Denver?", spanish, status);
    expect(t.query.split(" ")).toEqual(["invoice", "bill", "order", "denver"]);
    expect(t.translated).toBe(2);
    expect(t.untranslated).toBe(0);
  });

  it("finds an inflected word through its stem and a Latinate word through its English cognate", () => {
    const t = translateQuestion("cancelar suscripciones especificación", spanish, status);
    expect(t.query).toBe("cancel subscription specification");
    expect(t.untranslated).toBe(0);
  });

  it("keeps a word neither the documents nor the dictionary know, and is less certain for it", () => {
    const t = translateQuestion("suscripción zorbaglinte", spanish, status);
    expect(t.query).toBe("subscription zorbaglinte");
    expect(t.untranslated).toBe(1);
    expect(translationCertainty(t)).toBeLessThan(1);
    expect(translationCertainty(translateQuestion("suscripción", spanish, status))).toBe(1);
  });

  it("looks Chinese up by dictionary words", () => {
    const chinese = new Dictionary("zh", "test", "test", [
      ["忘记", ["forget"]],
      ["密码", ["cipher", "password"]],
      ["取消", ["call off", "cancel"]],
      ["订阅", ["subscription"]],
    ]);
    expect(translateQuestion("我忘记密码了", chinese, status).query).toBe("forget password");
    expect(translateQuestion("如何取消订阅", chinese, status).query).toBe("cancel subscription");
  });

  it("finds an Arabic word behind its article", () => {
    const arabic = new Dictionary("ar", "test", "test", [["فاتورة", ["invoice"]]]);
    expect(translateQuestion("الفاتورة", arabic, status).query).toBe("invoice");
  });
});

describe("dictionaryKeys", () => {
  /** Only the question's keys of `dictionary`: what the dictionaries' thread sends back. */
  const keysOnly = (dictionary: Dictionary, question: string): DictionaryTable => {
    const keys = dictionaryKeys(question, dictionary.language);
    return {
      language: dictionary.language,
      longest: dictionary.longest,
      lookup: (key) => (keys.lookups.includes(key) ? dictionary.lookup(key) : []),
      has: (key) => keys.headwords.includes(key) && dictionary.has(key),
    };
  };
  const spanish = new Dictionary("es", "test", "test", [
    ["suscripción", ["subscription"]],
    ["factura", ["invoice", "bill"]],
    ["tarjeta de", ["card of"]],
    ["tarjeta de crédito", ["credit card"]],
  ]);
  const chinese = new Dictionary("zh", "test", "test", [
    ["忘记", ["forget"]],
    ["密码", ["cipher", "password"]],
    ["取消", ["call off", "cancel"]],
    ["订阅", ["subscription"]],
  ]);

  it.each([
    [spanish, "¿Dónde está la factura de mi suscripción?"],
    [spanish, "cancelar suscripciones con tarjeta de crédito"],
    [chinese, "我忘记密码了怎么办"],
    [chinese, "如何取消订阅"],
  ])("holds every key translateQuestion looks up (%#)", (dictionary, question) => {
    const whole = translateQuestion(question, dictionary, status);
    expect(translateQuestion(question, keysOnly(dictionary, question), status)).toEqual(whole);
    expect(whole.translated).toBeGreaterThan(0);
  });
});

describe("cognateCandidates", () => {
  it("turns Romance suffixes into English ones", () => {
    expect(cognateCandidates("especificacion", "es")).toContain("specification");
    expect(cognateCandidates("evoluzione", "it")).toContain("evolution");
    expect(cognateCandidates("cancelar", "es")).toContain("cancel");
    expect(cognateCandidates("pago", "es")).toEqual([]);
    expect(cognateCandidates("cancelar", "de")).toEqual([]);
  });
});
