import type { z } from "zod";
import { formatPath } from "./hints.js";

// Lax coercion: the slips models make most often, taken where only one reading is possible. It runs
// only after the arguments failed as sent, so a correct call pays nothing for it.

/** What kind of slip was taken: the metric attribute and log field. */
export type CoercionKind = "number" | "boolean" | "json" | "enum_case" | "argument_name";

/** One argument taken in the form its schema needs. */
export interface Coercion {
  /** Where, as the schema names it: `limit`, `items[0].qty`. */
  path: string;
  kind: CoercionKind;
  /** What was sent: its JSON type (`string`), or for a renamed argument the name as sent. */
  from: string;
}

type Def = { type: string; [key: string]: unknown };

function defOf(schema: unknown): Def | undefined {
  return (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/** The schema under optional/nullable/default/… and the input side of a pipe. */
function unwrap(schema: unknown): Def | undefined {
  let def = defOf(schema);
  for (let depth = 0; def && depth < 32; depth++) {
    if (WRAPPERS.has(def.type)) def = defOf(def.innerType);
    else if (def.type === "pipe") def = defOf(def.in);
    else break;
  }
  return def;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Sets an own property, `__proto__` included. */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A JSON number as text: no blanks, no hex, no empty string, no Infinity. */
const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const INTEGER_TEXT = /^-?(0|[1-9]\d*)$/;

/** The number a string spells, when it spells exactly one (an integer beyond 2^53 does not). */
export function numberFrom(text: string): number | undefined {
  if (text.length > 40 || !NUMBER_TEXT.test(text)) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) return undefined;
  if (INTEGER_TEXT.test(text) && !Number.isSafeInteger(n)) return undefined;
  return n;
}

/** Folds case and the separators names are written with: `accountId`, `account_id`, `Account-ID`. */
export function nameKey(name: string): string {
  return name.toLowerCase().replace(/[_\-\s.]/g, "");
}

/** A JSON text of the wanted kind, parsed; undefined when the text is anything else. */
export function jsonFrom(text: string, kind: "object" | "array"): unknown {
  const start = text.trimStart()[0];
  if (start !== (kind === "object" ? "{" : "[")) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return kind === "object"
      ? isPlainObject(parsed)
        ? parsed
        : undefined
      : Array.isArray(parsed)
        ? parsed
        : undefined;
  } catch {
    return undefined;
  }
}

const MAX_DEPTH = 64;

/**
 * `value` with every unambiguous slip taken (see the kinds above), and what was taken. A union is
 * left alone when a member takes the value as it is, or when more than one member would take a
 * coerced form: which one was meant is not for the server to guess.
 */
export function coerceArguments(schema: z.ZodType, value: unknown): { value: unknown; coercions: Coercion[] } {
  const coercions: Coercion[] = [];
  const out = coerce(schema, value, [], coercions, 0);
  return { value: out, coercions };
}

function coerce(schema: unknown, value: unknown, path: PropertyKey[], taken: Coercion[], depth: number): unknown {
  if (value === undefined || value === null || depth > MAX_DEPTH) return value;
  const def = unwrap(schema);
  if (!def) return value;
  switch (def.type) {
    case "number": {
      if (typeof value !== "string") return value;
      const n = numberFrom(value);
      if (n === undefined) return value;
      taken.push({ path: formatPath(path), kind: "number", from: "string" });
      return n;
    }
    case "boolean": {
      if (typeof value !== "string") return value;
      const lower = value.toLowerCase();
      if (lower !== "true" && lower !== "false") return value;
      taken.push({ path: formatPath(path), kind: "boolean", from: "string" });
      return lower === "true";
    }
    case "enum": {
      if (typeof value !== "string") return value;
      const options = Object.values(def.entries as Record<string, unknown>);
      if (options.includes(value)) return value;
      const lower = value.toLowerCase();
      const same = options.filter((o) => typeof o === "string" && o.toLowerCase() === lower);
      if (same.length !== 1) return value;
      taken.push({ path: formatPath(path), kind: "enum_case", from: "string" });
      return same[0];
    }
    case "array": {
      let items: unknown = value;
      if (typeof value === "string") {
        const parsed = jsonFrom(value, "array");
        if (parsed === undefined) return value;
        taken.push({ path: formatPath(path), kind: "json", from: "string" });
        items = parsed;
      }
      if (!Array.isArray(items)) return value;
      let out = items;
      for (const [i, item] of items.entries()) {
        const next = coerce(def.element, item, [...path, i], taken, depth + 1);
        if (next === item) continue;
        if (out === items) out = [...items];
        out[i] = next;
      }
      return out;
    }
    case "record": {
      if (!isPlainObject(value)) return value;
      let out = value;
      for (const [key, item] of Object.entries(value)) {
        const next = coerce(def.valueType, item, [...path, key], taken, depth + 1);
        if (next === item) continue;
        if (out === value) out = { ...value };
        setOwn(out, key, next);
      }
      return out;
    }
    case "object":
      return coerceObject(def, value, path, taken, depth);
    case "union":
      return coerceUnion(def, value, path, taken, depth);
    default:
      return value;
  }
}

function coerceObject(def: Def, value: unknown, path: PropertyKey[], taken: Coercion[], depth: number): unknown {
  let object: unknown = value;
  if (typeof value === "string") {
    const parsed = jsonFrom(value, "object");
    if (parsed === undefined) return value;
    taken.push({ path: formatPath(path), kind: "json", from: "string" });
    object = parsed;
  }
  if (!isPlainObject(object)) return value;
  const shape = def.shape as Record<string, z.ZodType>;
  let out = object;
  // Names that differ from exactly one declared name only in case or separators, when that name
  // was not sent as well.
  const byKey = new Map<string, string[]>();
  for (const name of Object.keys(shape)) {
    const key = nameKey(name);
    byKey.set(key, [...(byKey.get(key) ?? []), name]);
  }
  const renamed = new Map<string, string>();
  for (const sent of Object.keys(object)) {
    if (Object.hasOwn(shape, sent)) continue;
    const matches = byKey.get(nameKey(sent));
    if (matches?.length !== 1) continue;
    const [declared] = matches as [string];
    if (Object.hasOwn(object, declared) || [...renamed.values()].includes(declared)) continue;
    renamed.set(sent, declared);
    taken.push({ path: formatPath([...path, declared]), kind: "argument_name", from: sent });
  }
  if (renamed.size > 0) {
    // Rebuilt in the order sent, so hints and logs list the arguments as the caller wrote them.
    out = {};
    for (const [key, item] of Object.entries(object)) setOwn(out, renamed.get(key) ?? key, item);
  }
  for (const [key, item] of Object.entries(out)) {
    if (!Object.hasOwn(shape, key)) continue;
    const next = coerce(shape[key], item, [...path, key], taken, depth + 1);
    if (next === item) continue;
    if (out === object) out = { ...object };
    setOwn(out, key, next);
  }
  return out;
}

function coerceUnion(def: Def, value: unknown, path: PropertyKey[], taken: Coercion[], depth: number): unknown {
  const options = def.options as z.ZodType[];
  // The slips each form would take, found without parsing: a value no form can take one for
  // (most of a hostile list) costs no parse at all.
  const candidates: { option: z.ZodType; value: unknown; taken: Coercion[] }[] = [];
  for (const option of options) {
    const mine: Coercion[] = [];
    const next = coerce(option, value, path, mine, depth + 1);
    if (mine.length > 0) candidates.push({ option, value: next, taken: mine });
  }
  if (candidates.length === 0 || options.some((option) => option.safeParse(value).success)) return value;
  let chosen: { value: unknown; taken: Coercion[] } | undefined;
  for (const candidate of candidates) {
    if (!candidate.option.safeParse(candidate.value).success) continue;
    if (chosen !== undefined) return value;
    chosen = candidate;
  }
  if (chosen === undefined) return value;
  taken.push(...chosen.taken);
  return chosen.value;
}
