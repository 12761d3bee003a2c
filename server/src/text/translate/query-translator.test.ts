import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "../../log/logger.ts";
import { createDictionaryTranslator, type QueryTranslator } from "./query-translator.ts";
import type { WordStatus } from "./translate-question.ts";

/** A logger that keeps its lines. */
function keptLines(): Logger & { lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (msg: string) => {
    lines.push({ level, msg });
  };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

const status = (word: string): WordStatus => (["payment", "methods"].includes(word) ? "known" : "unknown");
const dirs: string[] = [];
const translators: QueryTranslator[] = [];
/** A translator on `dir`, closed after the test. */
const translatorOn = (dir: string, logger: Logger) => {
  const translator = createDictionaryTranslator(dir, logger);
  translators.push(translator);
  return translator;
};
/** The question's translation once its dictionary is read on the worker thread (the first may come before). */
async function onceRead(translator: QueryTranslator, question: string) {
  for (let tries = 0; tries < 200; tries++) {
    const translation = await translator.translate(question, status);
    if (translation) return translation;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), "lore-dictionaries-"));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  await Promise.all(translators.splice(0).map((t) => t.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("createDictionaryTranslator", () => {
  it("translates with a compiled dictionary and leaves English alone", async () => {
    const dir = folder();
    writeFileSync(
      join(dir, "es.json"),
      JSON.stringify({ language: "es", source: "test", licence: "test", entries: [["pago", ["payment"]]] }),
    );
    const translator = translatorOn(dir, keptLines());
    expect(translator.available).toEqual(["es"]);
    expect((await onceRead(translator, "¿Qué métodos de pago aceptan ustedes?"))?.query).toContain("payment");
    expect(await translator.translate("Which payment methods do you accept?", status)).toBeNull();
  });

  it("says so when no dictionary is installed, and searches as written", async () => {
    const logger = keptLines();
    const translator = translatorOn(join(folder(), "missing"), logger);
    expect(logger.lines).toContainEqual({
      level: "warn",
      msg: "no translation dictionaries: questions in other languages are searched as written",
    });
    expect(await translator.translate("¿Qué métodos de pago aceptan ustedes?", status)).toBeNull();
  });

  it("searches as written when a dictionary file is damaged, and says so once", async () => {
    const dir = folder();
    writeFileSync(join(dir, "es.json"), '{"language":"es","entries":[["pa');
    const logger = keptLines();
    const translator = translatorOn(dir, logger);
    const read = () => logger.lines.filter((l) => l.msg.includes("could not be read"));
    // The first questions may come while the worker thread still starts: searched as written too.
    for (let tries = 0; tries < 200 && read().length === 0; tries++) {
      expect(await translator.translate("¿Qué métodos de pago aceptan ustedes?", status)).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await translator.translate("¿Cuándo llega mi pago?", status)).toBeNull();
    expect(read()).toHaveLength(1);
  });
});
