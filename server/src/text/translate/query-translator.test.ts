import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "../../log/logger.ts";
import { createDictionaryTranslator } from "./query-translator.ts";
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
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), "lore-dictionaries-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("createDictionaryTranslator", () => {
  it("translates with a compiled dictionary and leaves English alone", () => {
    const dir = folder();
    writeFileSync(
      join(dir, "es.json"),
      JSON.stringify({ language: "es", source: "test", licence: "test", entries: [["pago", ["payment"]]] }),
    );
    const translator = createDictionaryTranslator(dir, keptLines());
    expect(translator.available).toEqual(["es"]);
    expect(translator.translate("¿Qué métodos de pago aceptan ustedes?", status)?.query).toContain("payment");
    expect(translator.translate("Which payment methods do you accept?", status)).toBeNull();
  });

  it("says so when no dictionary is installed, and searches as written", () => {
    const logger = keptLines();
    const translator = createDictionaryTranslator(join(folder(), "missing"), logger);
    expect(logger.lines).toContainEqual({
      level: "warn",
      msg: "no translation dictionaries: questions in other languages are searched as written",
    });
    expect(translator.translate("¿Qué métodos de pago aceptan ustedes?", status)).toBeNull();
  });

  it("searches as written when a dictionary file is damaged, and says so once", () => {
    const dir = folder();
    writeFileSync(join(dir, "es.json"), '{"language":"es","entries":[["pa');
    const logger = keptLines();
    const translator = createDictionaryTranslator(dir, logger);
    expect(translator.translate("¿Qué métodos de pago aceptan ustedes?", status)).toBeNull();
    expect(translator.translate("¿Cuándo llega mi pago?", status)).toBeNull();
    expect(logger.lines.filter((l) => l.msg.includes("could not be read"))).toHaveLength(1);
  });
});
