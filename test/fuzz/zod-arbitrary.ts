/**
 * fast-check arbitraries derived from the contract's zod (v4) schemas, for the shapes `shared/`
 * uses: objects (strict or not), strings with min/max and formats (uuid, email, url, regex),
 * numbers (int, bounds), enums, literals, arrays, optional/nullable/default, pipes, unions
 * (discriminated too) and records.
 *
 *   validOf(schema)     values that mostly pass the schema (boundaries included)
 *   mutatedOf(schema)   a valid value with one mutation: wrong type, missing or extra key, huge
 *                       string, unicode, NUL, out-of-range number, over-long array
 *   requestBodyOf(s)    a mix of both plus hostile whole bodies
 *
 * The oracle is the schema itself: a test classifies each generated value with `safeParse`.
 */
import fc from "fast-check";
import type { z } from "zod";

type Schema = z.ZodType;

/** Zod v4 keeps its definition under `_zod.def`; this reads it without `any`. */
interface Def {
  type: string;
  checks?: Array<{ _zod: { def: CheckDef } }>;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  element?: Schema;
  innerType?: Schema;
  in?: Schema;
  options?: Schema[];
  entries?: Record<string, string | number>;
  values?: unknown[];
  valueType?: Schema;
}

interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  value?: number;
  inclusive?: boolean;
}

export function defOf(schema: Schema): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function checksOf(schema: Schema): CheckDef[] {
  return (defOf(schema).checks ?? []).map((c) => c._zod.def);
}

export interface ArbitraryOptions {
  /** Replaces the arbitrary at a dotted path (`config.url`), e.g. to keep URLs off the network. */
  overrides?: Record<string, fc.Arbitrary<unknown>>;
  /** Longest string generated for unbounded or very long fields (the max itself is still tried). */
  maxStringLength?: number;
  maxArrayLength?: number;
}

const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\uD800",
  "\uFEFF",
  "🙂👩‍👩‍👧",
  "e\u0301",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "$" + "{process.env}", // a template placeholder, as text
  "../../etc/passwd",
  "\r\n\r\nX-Injected: 1",
  "%00",
  "Ω≈ç√∫",
  "​",
];

function stringArb(schema: Schema, opts: ArbitraryOptions): fc.Arbitrary<string> {
  const checks = checksOf(schema);
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  let format: CheckDef | undefined;
  for (const c of checks) {
    if (c.check === "min_length" && c.minimum !== undefined) min = Math.max(min, c.minimum);
    if (c.check === "max_length" && c.maximum !== undefined) max = Math.min(max, c.maximum);
    if (c.check === "length_equals" && c.value !== undefined) min = max = c.value;
    if (c.check === "string_format") format = c;
  }
  if (format?.format === "uuid") return fc.uuid();
  if (format?.format === "email") return fc.stringMatching(/^[a-z0-9]{1,12}@[a-z]{1,10}\.(com|org|io)$/);
  if (format?.format === "url")
    return fc.constantFrom("https://example.com/", "https://example.com/a?b=c", "http://[::1]/x");
  if (format?.format === "regex" && format.pattern) {
    // fast-check refuses flags; the contract's case-insensitive patterns still match their lower-case form.
    const pattern = new RegExp(format.pattern.source);
    return fc.stringMatching(pattern).filter((s) => s.length >= min && s.length <= max);
  }
  const cap = opts.maxStringLength ?? 200;
  const hi = Math.min(max, Math.max(min, cap));
  const variants: fc.Arbitrary<string>[] = [
    fc.string({ minLength: min, maxLength: hi }),
    fc.string({ minLength: min, maxLength: hi, unit: "grapheme" }),
    fc.string({ minLength: min, maxLength: hi, unit: "binary" }),
  ];
  if (Number.isFinite(max)) variants.push(fc.constant("x".repeat(max))); // the boundary itself
  if (min > 0) variants.push(fc.constant("y".repeat(min)));
  return fc.oneof(...variants);
}

function numberArb(schema: Schema): fc.Arbitrary<number> {
  let min = -1e9;
  let max = 1e9;
  let int = false;
  for (const c of checksOf(schema)) {
    if (c.check === "greater_than" && c.value !== undefined) min = c.inclusive ? c.value : c.value + 1e-9;
    if (c.check === "less_than" && c.value !== undefined) max = c.inclusive ? c.value : c.value - 1e-9;
    if (c.check === "number_format" && (c.format === "safeint" || c.format === "int32")) int = true;
  }
  if (int)
    return fc.oneof(
      fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
      fc.constantFrom(Math.ceil(min), Math.floor(max)),
    );
  return fc.oneof(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(min, max));
}

/** Arbitrary of values meant to satisfy `schema` (the boundaries included). */
export function validOf(schema: Schema, opts: ArbitraryOptions = {}, path = ""): fc.Arbitrary<unknown> {
  const override = opts.overrides?.[path];
  if (override) return override;
  const def = defOf(schema);
  switch (def.type) {
    case "string":
      return stringArb(schema, opts);
    case "number":
      return numberArb(schema);
    case "boolean":
      return fc.boolean();
    case "enum":
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case "literal":
      return fc.constantFrom(...(def.values ?? [null]));
    case "null":
      return fc.constant(null);
    case "array": {
      if (!def.element) return fc.constant([]);
      let min = 0;
      let max = opts.maxArrayLength ?? 4;
      for (const c of checksOf(schema)) {
        if (c.check === "min_length" && c.minimum !== undefined) min = c.minimum;
        if (c.check === "max_length" && c.maximum !== undefined) max = Math.min(max, c.maximum);
      }
      return fc.array(validOf(def.element, opts, `${path}[]`), {
        minLength: min,
        maxLength: Math.max(min, max),
      });
    }
    case "object": {
      const shape = def.shape ?? {};
      const arbs: Record<string, fc.Arbitrary<unknown>> = {};
      const required: string[] = [];
      for (const [key, field] of Object.entries(shape)) {
        arbs[key] = validOf(field, opts, path ? `${path}.${key}` : key);
        if (!isOptional(field)) required.push(key);
      }
      return fc.record(arbs, { requiredKeys: required }) as fc.Arbitrary<unknown>;
    }
    case "optional":
    case "nonoptional":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
      return def.innerType ? validOf(def.innerType, opts, path) : fc.constant(undefined);
    case "nullable":
      return def.innerType
        ? fc.option(validOf(def.innerType, opts, path), { nil: null, freq: 5 })
        : fc.constant(null);
    case "pipe":
      return def.in ? validOf(def.in, opts, path) : fc.jsonValue();
    case "union":
      return fc.oneof(...(def.options ?? []).map((o) => validOf(o, opts, path)));
    case "record":
      return fc.dictionary(
        fc.string({ minLength: 1, maxLength: 10 }),
        def.valueType ? validOf(def.valueType, opts, `${path}.*`) : fc.jsonValue(),
        {
          maxKeys: 4,
        },
      );
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Whether an object key may be left out: optional, or with a default. */
export function isOptional(schema: Schema): boolean {
  const def = defOf(schema);
  if (def.type === "nonoptional") return false;
  if (def.type === "optional" || def.type === "default" || def.type === "prefault") return true;
  if ((def.type === "nullable" || def.type === "readonly") && def.innerType) return isOptional(def.innerType);
  return false;
}

/** Values of the wrong JSON type or hostile content for any field. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1e308, -0, [], {}, "", [null], { a: { b: { c: {} } } }),
  fc.constantFrom(...NASTY_STRINGS),
  fc.integer().map((n) => "9".repeat(Math.abs(n % 50) + 1)),
  fc.nat({ max: 3 }).map((n) => "Z".repeat([10_001, 20_001, 100_000, 1_000_000][n] ?? 10)),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Mutates one spot of an object: drop a key, add an unknown key, or replace a field with a hostile value. */
function mutateObject(value: Record<string, unknown>, schema: Schema): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const keys = Object.keys(def.shape ?? value);
  const present = Object.keys(value);
  const options: fc.Arbitrary<unknown>[] = [
    // an extra key (strict schemas refuse it; others ignore it)
    fc
      .tuple(
        fc.constantFrom("extra", "isAdmin", "id", "workspace_id", "__proto__x", "toString"),
        hostileValue,
      )
      .map(([k, v]) => ({ ...value, [k]: v })),
  ];
  if (present.length > 0) {
    options.push(
      fc
        .constantFrom(...present)
        .map((k) => Object.fromEntries(Object.entries(value).filter(([key]) => key !== k))),
    );
  }
  if (keys.length > 0) {
    options.push(fc.tuple(fc.constantFrom(...keys), hostileValue).map(([k, v]) => ({ ...value, [k]: v })));
    options.push(
      fc.constantFrom(...keys).chain((k) => {
        const field = def.shape?.[k];
        return (field ? mutatedOf(field) : hostileValue).map((v) => ({ ...value, [k]: v }));
      }),
    );
  }
  return fc.oneof(...options);
}

/** Boundary violations a schema's own checks name: one past max/min, a fraction for an int. */
function boundaryViolations(schema: Schema): unknown[] {
  const def = defOf(schema);
  const inner =
    def.type === "optional" || def.type === "nullable" || def.type === "default" || def.type === "nonoptional"
      ? def.innerType
      : undefined;
  if (inner) return boundaryViolations(inner);
  if (def.type === "pipe" && def.in) return boundaryViolations(def.in);
  const out: unknown[] = [];
  for (const c of checksOf(schema)) {
    if (def.type === "string" && c.check === "max_length" && c.maximum !== undefined)
      out.push("x".repeat(c.maximum + 1));
    if (def.type === "string" && c.check === "min_length" && c.minimum) out.push("y".repeat(c.minimum - 1));
    if (def.type === "number" && c.check === "greater_than" && c.value !== undefined)
      out.push(c.value - 1, c.value - 0.5);
    if (def.type === "number" && c.check === "less_than" && c.value !== undefined)
      out.push(c.value + 1, c.value + 0.5);
    if (def.type === "number" && c.check === "number_format") out.push(1.5, Number.MAX_SAFE_INTEGER + 2);
    if (def.type === "array" && c.check === "max_length" && c.maximum !== undefined)
      out.push(Array.from({ length: c.maximum + 1 }, () => "a"));
    if (def.type === "array" && c.check === "min_length" && c.minimum) out.push([]);
  }
  if (def.type === "string") out.push("a\u0000b", "\uD800x", "🙂".repeat(50));
  if (def.type === "enum")
    out.push("not-a-member", String(Object.values(def.entries ?? {})[0] ?? "").toUpperCase());
  return out;
}

/** A valid value with exactly one thing wrong (or hostile) in it. */
export function mutatedOf(schema: Schema, opts: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const base = validOf(schema, opts);
  const boundary = boundaryViolations(schema);
  const options: fc.Arbitrary<unknown>[] = [hostileValue];
  if (boundary.length > 0) options.push(fc.constantFrom(...boundary));
  if (def.type === "object") {
    options.push(
      base.chain((v) =>
        v && typeof v === "object" && !Array.isArray(v)
          ? mutateObject(v as Record<string, unknown>, schema)
          : fc.constant(v),
      ),
    );
  }
  if (def.type === "union" && def.options) {
    // The discriminant of one branch with the body of another.
    options.push(
      fc
        .tuple(validOf(schema, opts), validOf(schema, opts))
        .map(([a, b]) => (isRecord(a) && isRecord(b) ? { ...a, config: b.config } : a)),
    );
    options.push(...def.options.map((o) => mutatedOf(o, opts)));
  }
  if (def.type === "array" && def.element) {
    options.push(
      fc
        .tuple(base, mutatedOf(def.element, opts))
        .map(([arr, bad]) => (Array.isArray(arr) ? [...arr, bad] : [bad])),
    );
  }
  return fc.oneof(...options);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What a fuzzed client sends: mostly valid, often one mutation away, sometimes garbage. */
export function requestBodyOf(schema: Schema, opts: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: validOf(schema, opts) },
    { weight: 4, arbitrary: mutatedOf(schema, opts) },
    { weight: 1, arbitrary: hostileValue },
  );
}
