import { closestMatches, type ValidationIssue } from "@toolshed/errors";
import type { z } from "zod";
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

/** At most this many problems are listed; the rest are counted (keeps answers and work bounded). */
export const MAX_LISTED_ISSUES = 20;

interface KeyScan {
  issues: ValidationIssue[];
  /** Unknown keys found beyond the listed ones. */
  more: number;
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
  return scanUnknownKeys(schema, value, path, limit).issues;
}

function scanUnknownKeys(schema: z.ZodType, value: unknown, path: PropertyKey[], limit: number): KeyScan {
  const scan: KeyScan = { issues: [], more: 0 };
  scanKeys(schema, value, path, scan, limit);
  return scan;
}

function scanKeys(schema: z.ZodType, value: unknown, path: PropertyKey[], scan: KeyScan, limit: number): void {
  let def = defOf(schema);
  while (def && (WRAPPERS.has(def.type) || def.type === "pipe")) {
    def = defOf(def.type === "pipe" ? def.in : def.innerType);
  }
  if (!def) return;
  if (def.type === "array" && Array.isArray(value)) {
    for (const [i, item] of value.entries()) scanKeys(def.element as z.ZodType, item, [...path, i], scan, limit);
    return;
  }
  if (def.type === "record" && isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) scanKeys(def.valueType as z.ZodType, v, [...path, k], scan, limit);
    return;
  }
  if (def.type !== "object" || !isPlainObject(value)) return;
  const shape = def.shape as Record<string, z.ZodType>;
  const known = Object.keys(shape);
  const topLevel = path.length === 0;
  for (const key of Object.keys(value)) {
    const sub = shape[key];
    if (sub !== undefined && Object.hasOwn(shape, key)) {
      scanKeys(sub, value[key], [...path, key], scan, limit);
      continue;
    }
    if (def.catchall !== undefined) continue;
    if (scan.issues.length >= limit) {
      scan.more++;
      continue;
    }
    const noun = topLevel ? "argument" : "key";
    const [guess] = closestMatches(key, known, 1, Math.max(2, Math.floor(key.length / 3)));
    const valid = known.length === 0 ? `this takes no ${noun}s` : `valid ${noun}s: ${known.join(", ")}`;
    const hint = guess === undefined ? valid : `did you mean "${guess}"? ${valid[0]?.toUpperCase()}${valid.slice(1)}`;
    scan.issues.push({ path: formatPath([...path, key]), message: `unknown ${noun}; ${hint}` });
  }
}

export type ParseResult<T> = { success: true; data: T } | { success: false; issues: ValidationIssue[] };

/**
 * Validates tool arguments (C5, C6): unknown keys, every schema rule and object-level
 * refinement, each problem phrased as a hint. A missing arguments object counts as `{}`.
 */
export function parseArguments<S extends z.ZodType>(schema: S, args: unknown): ParseResult<z.output<S>> {
  const value = args === undefined || args === null ? {} : args;
  const unknown = scanUnknownKeys(schema, value, [], MAX_LISTED_ISSUES);
  const parsed = schema.safeParse(value, { error: hintErrorMap });
  if (parsed.success && unknown.issues.length === 0) return { success: true, data: parsed.data };
  const all = [...unknown.issues, ...(parsed.success ? [] : toValidationIssues(parsed.error.issues))];
  const hidden = unknown.more + Math.max(0, all.length - MAX_LISTED_ISSUES);
  const issues = all.slice(0, MAX_LISTED_ISSUES);
  if (hidden > 0)
    issues.push({ path: "", message: `… and ${hidden} more problem${hidden === 1 ? "" : "s"}; fix these first` });
  return { success: false, issues };
}
