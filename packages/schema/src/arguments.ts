import { closestMatches, type ValidationIssue } from "@toolshed/errors";
import type { z } from "zod";
import { type Coercion, coerceArguments, nameKey } from "./coerce.js";
import { formatPath, hintErrorMap, toValidationIssues } from "./hints.js";

type Def = { type: string; [key: string]: unknown };

function defOf(schema: unknown): Def | undefined {
  return (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;
}

const WRAPPERS = new Set([
  "optional",
  "nullable",
  "default",
  "prefault",
  "readonly",
  "catch",
  "nonoptional",
  "success",
]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Sets an own property, `__proto__` included (an assignment would change the prototype instead). */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** At most this many problems are listed; the rest are counted (keeps answers and work bounded). */
export const MAX_LISTED_ISSUES = 20;

interface KeyScan {
  issues: ValidationIssue[];
  /** Unknown keys found beyond the listed ones. */
  more: number;
  /** Paths of required properties that were sent as null (their hint says they are required). */
  requiredNulls: Set<string> | undefined;
  /** Lists longer than LONG_LIST with no bound of their own, outermost only (see longListIssues). */
  longLists?: LongList[];
  /** Set while inside a recorded long list: its items' own lists are checked with it. */
  inLongList?: boolean;
}

interface LongList {
  path: PropertyKey[];
  element: z.ZodType;
  items: unknown[];
}

/**
 * A list longer than this, with no maximum below its length, has its items checked one by one
 * before the whole parse, stopping at the first few that fail: a refused call then costs what the
 * items before them cost, not a failed parse of every item (Zod builds each union branch's
 * problems for every item, about 9 µs each).
 */
const LONG_LIST = 100;

function maxLength(def: Def): number | undefined {
  const checks = (def.checks ?? []) as { _zod?: { def?: { check?: string; maximum?: number } } }[];
  let max: number | undefined;
  for (const check of checks) {
    const d = check._zod?.def;
    if (d?.check === "max_length" && typeof d.maximum === "number") max = Math.min(max ?? d.maximum, d.maximum);
  }
  return max;
}

/**
 * Keys the schema does not know, at any depth Zod's own parse would strip them silently. Unions
 * and lazy schemas are not entered: which branch applies is Zod's call. At most `limit` are
 * described; `more` counts the rest without the cost of a suggestion each.
 */
export function unknownKeyIssues(
  schema: z.ZodType,
  value: unknown,
  path: PropertyKey[] = [],
  limit = MAX_LISTED_ISSUES,
): ValidationIssue[] {
  const scan: KeyScan = { issues: [], more: 0, requiredNulls: undefined };
  scanKeys(schema, value, path, scan, limit);
  return scan.issues;
}

/**
 * Whether a schema takes `null` as a value: nullable, null, any, unknown, a union or literal
 * with null, or a catch (which turns null into its fallback). Read from the definition, so no
 * refinement or transform of the caller's runs to find out.
 */
function acceptsNull(schema: unknown, depth = 0): boolean {
  const def = defOf(schema);
  if (!def || depth > 32) return false;
  switch (def.type) {
    case "null":
    case "any":
    case "unknown":
    case "nullable":
    case "catch":
      return true;
    case "optional":
    case "default":
    case "prefault":
    case "readonly":
    case "nonoptional":
      return acceptsNull(def.innerType, depth + 1);
    case "pipe":
      return acceptsNull(def.in, depth + 1);
    case "lazy":
      return acceptsNull((def.getter as () => unknown)(), depth + 1);
    case "union":
      return (def.options as unknown[]).some((o) => acceptsNull(o, depth + 1));
    case "intersection":
      return acceptsNull(def.left, depth + 1) && acceptsNull(def.right, depth + 1);
    case "literal":
      return (def.values as unknown[]).includes(null);
    default:
      return false;
  }
}

/** Zod marks a property that may be left out (optional, default, prefault) with `optin`. */
function mayBeLeftOut(schema: z.ZodType): boolean {
  return (schema as { _zod?: { optin?: unknown } })._zod?.optin !== undefined;
}

/**
 * One walk over the arguments: finds unknown keys (see {@link unknownKeyIssues}) and applies the
 * null rule: `null` for a property that may be left out and is not nullable means "left out",
 * so its default applies. Returns the value to parse, copied only where a null was dropped.
 */
function scanKeys(schema: z.ZodType, value: unknown, path: PropertyKey[], scan: KeyScan, limit: number): unknown {
  let def = defOf(schema);
  while (def && (WRAPPERS.has(def.type) || def.type === "pipe")) {
    def = defOf(def.type === "pipe" ? def.in : def.innerType);
  }
  if (!def) return value;
  if (def.type === "array" && Array.isArray(value)) {
    const long = !scan.inLongList && value.length > LONG_LIST && !(value.length > (maxLength(def) ?? Infinity));
    if (long) scan.inLongList = true;
    let out = value;
    for (const [i, item] of value.entries()) {
      if (typeof item !== "object" || item === null) continue;
      const next = scanKeys(def.element as z.ZodType, item, [...path, i], scan, limit);
      if (next === item) continue;
      if (out === value) out = [...value];
      out[i] = next;
    }
    if (long) {
      scan.inLongList = false;
      scan.longLists ??= [];
      scan.longLists.push({ path, element: def.element as z.ZodType, items: out });
    }
    return out;
  }
  if (def.type === "record" && isPlainObject(value)) {
    let out = value;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== "object" || v === null) continue;
      const next = scanKeys(def.valueType as z.ZodType, v, [...path, k], scan, limit);
      if (next === v) continue;
      if (out === value) out = { ...value };
      setOwn(out, k, next);
    }
    return out;
  }
  if (def.type !== "object" || !isPlainObject(value)) return value;
  const shape = def.shape as Record<string, z.ZodType>;
  let out = value;
  for (const key of Object.keys(value)) {
    const sub = shape[key];
    if (sub !== undefined && Object.hasOwn(shape, key)) {
      const item = value[key];
      if (item === null && !acceptsNull(sub)) {
        if (mayBeLeftOut(sub)) {
          if (out === value) out = { ...value };
          delete out[key];
        } else {
          scan.requiredNulls ??= new Set();
          scan.requiredNulls.add(formatPath([...path, key]));
        }
        continue;
      }
      // Only objects and arrays hold keys to check: no path is built for the rest.
      if (typeof item !== "object" || item === null) continue;
      const next = scanKeys(sub, item, [...path, key], scan, limit);
      if (next !== item) {
        if (out === value) out = { ...value };
        setOwn(out, key, next);
      }
      continue;
    }
    if (def.catchall !== undefined) continue;
    if (scan.issues.length >= limit) {
      scan.more++;
      continue;
    }
    scan.issues.push({
      path: formatPath([...path, key]),
      message: unknownKeyMessage(key, Object.keys(shape), path.length === 0),
    });
  }
  return out;
}

/** The hint for a key the schema does not know: the one it was likely meant to be, and the valid ones. */
export function unknownKeyMessage(key: string, known: readonly string[], topLevel: boolean): string {
  const noun = topLevel ? "argument" : "key";
  // The same name in another case or with other separators first (idempotencyKey: idempotency_key,
  // not the "id" it contains).
  const guess =
    known.find((name) => nameKey(name) === nameKey(key)) ??
    closestMatches(key, [...known], 1, Math.max(2, Math.floor(key.length / 3)))[0];
  const valid = known.length === 0 ? `this takes no ${noun}s` : `valid ${noun}s: ${known.join(", ")}`;
  const hint = guess === undefined ? valid : `did you mean "${guess}"? ${valid[0]?.toUpperCase()}${valid.slice(1)}`;
  return `unknown ${noun}; ${hint}`;
}

/** A string that is not valid Unicode: a lone surrogate (JSON can carry one as `\udfff`). */
function isMalformed(text: string): boolean {
  // String.prototype.isWellFormed is in Node 20 but not in the ES2023 lib this package compiles with.
  return !(text as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * Hints for strings no store keeps intact, anywhere in the arguments: text that is not valid
 * Unicode (SQLite writes invalid UTF-8, URIs cannot encode it) and the NUL character (PostgreSQL
 * refuses it). One rule for every backend, so they are refused up front.
 */
function malformedText(value: unknown, path: PropertyKey[], scan: KeyScan, limit: number, depth = 0): void {
  if (typeof value === "string") {
    if (isCleanText(value)) return;
    const nul = value.indexOf("\u0000");
    if (scan.issues.length >= limit) {
      scan.more++;
      return;
    }
    const chars = [...value];
    const message =
      nul >= 0
        ? `must not contain the NUL character (\\u0000, character ${chars.indexOf("\u0000") + 1}); leave it out`
        : `must be valid Unicode text: character ${chars.findIndex((c) => isMalformed(c)) + 1} is a lone surrogate (half of an emoji or other pair); send the whole character or leave it out`;
    scan.issues.push({ path: formatPath(path), message });
    return;
  }
  // Nesting is bounded by the body limit; the depth guard keeps a hostile nesting from the stack.
  if (depth > 64 || typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === "string" ? isCleanText(item) : typeof item !== "object" || item === null) continue;
      malformedText(item, [...path, i], scan, limit, depth + 1);
    }
    return;
  }
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    // Well-formed text needs no path: most arguments are, and a path costs an array each.
    if (typeof item === "string" ? isCleanText(item) : typeof item !== "object" || item === null) continue;
    malformedText(item, [...path, key], scan, limit, depth + 1);
  }
}

function isCleanText(text: string): boolean {
  return text.indexOf("\u0000") < 0 && !isMalformed(text);
}

/** The hint map, saying "is required" where a required property was sent as null. */
function requiredNullMap(paths: Set<string>): (issue: z.core.$ZodRawIssue) => string {
  return (issue) => {
    const hint = hintErrorMap(issue);
    if (issue.input !== null || !paths.has(formatPath(issue.path ?? []))) return hint;
    return hint.startsWith("must ") ? `is required and ${hint}` : `is required; ${hint}`;
  };
}

export type ParseResult<T> =
  | {
      success: true;
      data: T;
      /** The slips taken to get there (lax coercion); absent when the arguments were fine as sent. */
      coercions?: Coercion[];
    }
  | { success: false; issues: ValidationIssue[] };

export interface ParseOptions {
  /**
   * Lax coercion (default false here; tools turn it on unless `coerce: false`): when the arguments
   * fail as sent, take numeric and boolean strings for numbers and booleans, a JSON string for an
   * object or array, an enum value in another case, and an argument name in another case or with
   * other separators, wherever only one reading is possible, and validate again.
   */
  coerce?: boolean;
}

/**
 * Validates tool arguments (C5, C6): unknown keys, every schema rule and object-level
 * refinement, each problem phrased as a hint. A missing arguments object counts as `{}`, and
 * `null` for a property that may be left out and is not nullable counts as leaving it out.
 */
export function parseArguments<S extends z.ZodType>(
  schema: S,
  args: unknown,
  options: ParseOptions = {},
): ParseResult<z.output<S>> {
  const sent = args === undefined || args === null ? {} : args;
  const first = validate(schema, sent);
  if (first.success || options.coerce !== true) return first;
  const { value, coercions } = coerceArguments(schema, sent);
  if (coercions.length === 0) return first;
  const second = validate(schema, value);
  // Still wrong: the hints speak of the coerced form, whose remaining problems are the real ones.
  return second.success ? { success: true, data: second.data, coercions } : second;
}

function validate<S extends z.ZodType>(schema: S, args: unknown): ParseResult<z.output<S>> {
  const scan: KeyScan = { issues: [], more: 0, requiredNulls: undefined };
  const value = scanKeys(schema, args, [], scan, MAX_LISTED_ISSUES);
  malformedText(value, [], scan, MAX_LISTED_ISSUES);
  const errorMap = scan.requiredNulls ? requiredNullMap(scan.requiredNulls) : hintErrorMap;
  if (scan.longLists) {
    const early = longListIssues(scan.longLists, errorMap);
    if (early) return failed([...scan.issues, ...early.issues], scan.more, early.stopped);
  }
  if (scan.issues.length === 0 && scan.requiredNulls === undefined) {
    // Zod leaves its fast path when a parse is given any options (1-2 µs a call), and the hint
    // map only phrases failures: arguments that pass are parsed once without it, and only
    // failing ones again with it (a refinement of a failing call runs twice).
    const quick = schema.safeParse(value);
    if (quick.success) return { success: true, data: quick.data };
  }
  const parsed = schema.safeParse(value, { error: errorMap });
  if (parsed.success && scan.issues.length === 0) return { success: true, data: parsed.data };
  // Only the issues that can be listed are phrased; failed() counts the rest.
  const zodIssues = parsed.success ? [] : parsed.error.issues;
  const listed = toValidationIssues(zodIssues, MAX_LISTED_ISSUES);
  return failed([...scan.issues, ...listed], scan.more + zodIssues.length - listed.length);
}

/**
 * The first failing items of long lists (see LONG_LIST), each parsed alone, or undefined when
 * every item passes (the whole parse then runs as usual). Items are checked without the hint map
 * (Zod's fast path) and only the failing ones again with it, their problems at the list's path.
 */
function longListIssues(
  lists: LongList[],
  errorMap: (issue: z.core.$ZodRawIssue) => string,
): { issues: ValidationIssue[]; stopped: string } | undefined {
  const issues: z.core.$ZodIssue[] = [];
  for (const { path, element, items } of lists) {
    for (let i = 0; i < items.length; i++) {
      if (element.safeParse(items[i]).success) continue;
      const at = [...path, i];
      const map = (issue: z.core.$ZodRawIssue) => errorMap({ ...issue, path: [...at, ...(issue.path ?? [])] });
      const parsed = element.safeParse(items[i], { error: map });
      if (parsed.success) continue;
      for (const issue of parsed.error.issues) issues.push({ ...issue, path: [...at, ...issue.path] });
      if (issues.length >= MAX_LISTED_ISSUES) {
        const stopped = `checking stopped at item ${i + 1} of the ${items.length} in ${formatPath(path) || "the arguments"}`;
        return { issues: toValidationIssues(issues, MAX_LISTED_ISSUES), stopped };
      }
    }
  }
  // Fewer failures than can be listed: the whole parse phrases them, with any list-level problems.
  return undefined;
}

/** Problems with text no store keeps intact (see malformedText), at most `limit` listed; `more` counts the rest. */
export function textIssues(value: unknown, limit = MAX_LISTED_ISSUES): { issues: ValidationIssue[]; more: number } {
  const scan: KeyScan = { issues: [], more: 0, requiredNulls: undefined };
  malformedText(value, [], scan, limit);
  return { issues: scan.issues, more: scan.more };
}

/** A path is at most this long in a hint (keys come from the caller), a message at most MAX_MESSAGE. */
const MAX_PATH = 200;
const MAX_MESSAGE = 1000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

function clipped(issue: ValidationIssue): ValidationIssue {
  if (issue.path.length <= MAX_PATH && issue.message.length <= MAX_MESSAGE) return issue;
  return { ...issue, path: clip(issue.path, MAX_PATH), message: clip(issue.message, MAX_MESSAGE) };
}

/**
 * A failed parse listing at most MAX_LISTED_ISSUES problems, the rest counted in a last line;
 * `stopped` says where checking stopped when the rest were not looked for.
 */
export function failed(
  all: ValidationIssue[],
  more = 0,
  stopped?: string,
): { success: false; issues: ValidationIssue[] } {
  const hidden = more + Math.max(0, all.length - MAX_LISTED_ISSUES);
  const issues = all.slice(0, MAX_LISTED_ISSUES).map(clipped);
  if (stopped !== undefined) {
    const counted =
      hidden > 0
        ? `${hidden} more problem${hidden === 1 ? "" : "s"} and perhaps others (${stopped})`
        : `perhaps more problems (${stopped})`;
    issues.push({ path: "", message: `… and ${counted}; fix these first` });
  } else if (hidden > 0)
    issues.push({ path: "", message: `… and ${hidden} more problem${hidden === 1 ? "" : "s"}; fix these first` });
  return { success: false, issues };
}
