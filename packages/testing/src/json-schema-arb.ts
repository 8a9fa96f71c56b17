import fc from "fast-check";
import { hostileString } from "./hostile-strings.js";

/** The subset of JSON Schema the packs publish (C5 keeps them to portable keywords). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  default?: unknown;
}

/** The JSON type of a value as JSON Schema names it. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(value: unknown, type: string): boolean {
  const actual = jsonType(value);
  return actual === type || (type === "number" && actual === "integer");
}

const ASTRAL = /[\u{10000}-\u{10FFFF}]/u;

/**
 * True when the value certainly breaks the schema as Toolshed checks it (`null` for a property
 * that may be left out counts as left out); false when it fits or when the answer depends
 * on details the schema does not settle (string lengths with astral characters, which JSON
 * Schema counts in code points and Zod in UTF-16 units).
 */
export function breaksSchema(value: unknown, schema: JsonSchema): boolean {
  if (schema.anyOf) return schema.anyOf.every((s) => breaksSchema(value, s));
  if (schema.const !== undefined && value !== schema.const) return true;
  if (schema.enum && !schema.enum.some((e) => e === value)) return true;
  const types = schema.type === undefined ? undefined : [schema.type].flat();
  if (types && !types.some((t) => typeMatches(value, t))) return true;
  if (typeof value === "string" && !ASTRAL.test(value)) {
    if (schema.minLength !== undefined && value.length < schema.minLength) return true;
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return true;
  }
  if (typeof value === "string" && schema.pattern && !new RegExp(schema.pattern, "u").test(value)) return true;
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) return true;
    if (schema.maximum !== undefined && value > schema.maximum) return true;
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return true;
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return true;
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return true;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return true;
    if (schema.items && value.some((v) => breaksSchema(v, schema.items as JsonSchema))) return true;
  }
  if (jsonType(value) === "object") {
    const obj = value as Record<string, unknown>;
    const props = schema.properties ?? {};
    const required = schema.required ?? [];
    if (required.some((k) => !Object.hasOwn(obj, k))) return true;
    for (const key of Object.keys(obj)) {
      const inner = Object.hasOwn(props, key) ? props[key] : undefined;
      if (inner) {
        // Toolshed's rule (docs/schemas.md): null for a property that may be left out counts as left out.
        if (obj[key] === null && !required.includes(key)) continue;
        if (breaksSchema(obj[key], inner)) return true;
      } else if (schema.additionalProperties === false) return true;
    }
  }
  return false;
}

/** Words the data holds (titles, ids), so generated calls find, change and conflict with real rows. */
export interface KnownValues {
  strings: readonly string[];
}

function fit(value: string, schema: JsonSchema): string {
  let s = value;
  const min = schema.minLength ?? 0;
  if (s.length < min) s = s + "x".repeat(min - s.length);
  if (schema.maxLength !== undefined && s.length > schema.maxLength) s = s.slice(0, schema.maxLength);
  return s;
}

function stringArb(schema: JsonSchema, known: KnownValues): fc.Arbitrary<string> {
  const max = Math.min(schema.maxLength ?? 300, 300);
  const plain = fc.oneof(
    ...(known.strings.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...known.strings) }] : []),
    { weight: 2, arbitrary: fc.string({ maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: Math.min(max, 40) }) },
    { weight: 1, arbitrary: hostileString(max) },
  );
  if (schema.pattern) {
    const re = new RegExp(schema.pattern, "u");
    return fc
      .oneof(
        fc.stringMatching(re).map((s) => s.slice(0, max)),
        plain.map((s) => fit(s, schema)),
      )
      .filter((s) => re.test(s) && !breaksSchema(s, schema));
  }
  return plain.map((s) => fit(s, schema));
}

function numberArb(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? schema.exclusiveMinimum ?? -1e12;
  const max = Math.min(schema.maximum ?? schema.exclusiveMaximum ?? 1e12, Number.MAX_SAFE_INTEGER);
  const edges = fc.constantFrom(min, max, Math.min(max, min + 1), Math.max(min, max - 1));
  const inside = integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return fc.oneof(inside, edges).filter((n) => !breaksSchema(n, schema));
}

/** Values that fit the schema (by JSON Schema alone; object-level refinements may still refuse them). */
export function valueFor(schema: JsonSchema, known: KnownValues): fc.Arbitrary<unknown> {
  if (schema.anyOf && schema.anyOf.length > 0) return fc.oneof(...schema.anyOf.map((s) => valueFor(s, known)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const type = [schema.type].flat()[0];
  switch (type) {
    case "string":
      return stringArb(schema, known);
    case "integer":
      return numberArb(schema, true);
    case "number":
      return numberArb(schema, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(valueFor(schema.items ?? {}, known), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 8, 8),
      });
    case "object": {
      const props = schema.properties ?? {};
      const shape = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valueFor(s, known)]));
      return fc.record(shape, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
