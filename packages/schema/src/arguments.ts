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

/**
 * Keys the schema does not know, at any depth Zod's own parse would strip them silently. Unions
 * and lazy schemas are not entered: which branch applies is Zod's call.
 */
export function unknownKeyIssues(schema: z.ZodType, value: unknown, path: PropertyKey[] = []): ValidationIssue[] {
  let def = defOf(schema);
  while (def && (WRAPPERS.has(def.type) || def.type === "pipe")) {
    def = defOf(def.type === "pipe" ? def.in : def.innerType);
  }
  if (!def) return [];
  if (def.type === "array" && Array.isArray(value)) {
    return value.flatMap((item, i) => unknownKeyIssues(def.element as z.ZodType, item, [...path, i]));
  }
  if (def.type === "record" && isPlainObject(value)) {
    return Object.entries(value).flatMap(([k, v]) => unknownKeyIssues(def.valueType as z.ZodType, v, [...path, k]));
  }
  if (def.type !== "object" || !isPlainObject(value)) return [];
  const shape = def.shape as Record<string, z.ZodType>;
  const known = Object.keys(shape);
  const issues: ValidationIssue[] = [];
  const topLevel = path.length === 0;
  for (const key of Object.keys(value)) {
    const sub = shape[key];
    if (sub !== undefined && Object.hasOwn(shape, key)) {
      issues.push(...unknownKeyIssues(sub, value[key], [...path, key]));
      continue;
    }
    if (def.catchall !== undefined) continue;
    const noun = topLevel ? "argument" : "key";
    const [guess] = closestMatches(key, known, 1, Math.max(2, Math.floor(key.length / 3)));
    const valid = known.length === 0 ? `this takes no ${noun}s` : `valid ${noun}s: ${known.join(", ")}`;
    const hint = guess === undefined ? valid : `did you mean "${guess}"? ${valid[0]?.toUpperCase()}${valid.slice(1)}`;
    issues.push({ path: formatPath([...path, key]), message: `unknown ${noun}; ${hint}` });
  }
  return issues;
}

export type ParseResult<T> = { success: true; data: T } | { success: false; issues: ValidationIssue[] };

/**
 * Validates tool arguments (C5, C6): unknown keys, every schema rule and object-level
 * refinement, each problem phrased as a hint. A missing arguments object counts as `{}`.
 */
export function parseArguments<S extends z.ZodType>(schema: S, args: unknown): ParseResult<z.output<S>> {
  const value = args === undefined || args === null ? {} : args;
  const unknown = unknownKeyIssues(schema, value);
  const parsed = schema.safeParse(value, { error: hintErrorMap });
  if (parsed.success && unknown.length === 0) return { success: true, data: parsed.data };
  const issues = [...unknown, ...(parsed.success ? [] : toValidationIssues(parsed.error.issues))];
  return { success: false, issues };
}
