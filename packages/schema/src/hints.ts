import type { ValidationIssue } from "@toolshed/errors";
import type { z } from "zod";

const MAX_SHOWN = 60;
/** At most this many of the closest union branch's problems are quoted in its hint. */
export const MAX_CLOSEST = 3;

/** A short rendering of a value the caller sent, for `(got …)`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") {
    const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
    return `${JSON.stringify(shown)}${value.length > MAX_SHOWN ? ` (${value.length} characters)` : ""}`;
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? "" : "s"}`;
  if (typeof value === "object") return "an object";
  return typeof value;
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
  bigint: "an integer",
  date: "a date",
  record: "an object",
  map: "an object",
  set: "an array",
  literal: "a fixed value",
  nan: "NaN",
  tuple: "an array",
};

function typeName(expected: string): string {
  return TYPE_NAMES[expected] ?? expected;
}

function quoteAll(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === "string" ? JSON.stringify(v) : String(v))).join(", ");
}

function sizeWord(origin: string, n: number | bigint): string {
  if (origin === "string") return `${n} character${n === 1 ? "" : "s"}`;
  if (origin === "array" || origin === "set") return `${n} item${n === 1 ? "" : "s"}`;
  return String(n);
}

function sizeOf(origin: string, input: unknown): string {
  if (origin === "string" && typeof input === "string") return String(input.length);
  if (Array.isArray(input)) return String(input.length);
  if (input instanceof Set) return String(input.size);
  return describeValue(input);
}

const FORMAT_NAMES: Record<string, string> = {
  email: "an email address",
  url: "a URL",
  uuid: "a UUID",
  guid: "a GUID",
  datetime: "an ISO 8601 date-time such as 2025-01-31T12:00:00Z",
  date: "an ISO 8601 date such as 2025-01-31",
  time: "an ISO 8601 time such as 12:00:00",
  duration: "an ISO 8601 duration such as P3D",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
};

type RawIssue = z.core.$ZodRawIssue;

/**
 * Zod error map that phrases each problem as a hint (C6): what was wrong, what would work, and
 * what was sent. Passed per parse, so messages a schema sets itself still win.
 */
export function hintErrorMap(issue: RawIssue): string {
  const got = `(got ${describeValue(issue.input)})`;
  const i = issue as RawIssue & Record<string, unknown>;
  switch (issue.code) {
    case "invalid_type": {
      const expected = typeName(String(i.expected));
      if (issue.input === undefined) return `is required (${expected})`;
      return `must be ${expected} ${got}`;
    }
    case "invalid_value": {
      const values = (i.values as unknown[]) ?? [];
      if (values.length === 1) return `must be ${quoteAll(values)} ${got}`;
      return `must be one of ${quoteAll(values)} ${got}`;
    }
    case "too_big": {
      const origin = String(i.origin);
      const max = i.maximum as number;
      if (origin === "number" || origin === "bigint" || origin === "int") {
        return `${i.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`} ${got}`;
      }
      const verb = origin === "string" ? "must be at most" : "must have at most";
      return `${verb} ${sizeWord(origin, max)} (got ${sizeOf(origin, issue.input)})`;
    }
    case "too_small": {
      const origin = String(i.origin);
      const min = i.minimum as number;
      if (origin === "number" || origin === "bigint" || origin === "int") {
        return `${i.inclusive === false ? `must be greater than ${min}` : `must be at least ${min}`} ${got}`;
      }
      if (origin === "string" && Number(min) === 1) return "must not be empty";
      const verb = origin === "string" ? "must be at least" : "must have at least";
      return `${verb} ${sizeWord(origin, min)} (got ${sizeOf(origin, issue.input)})`;
    }
    case "invalid_format": {
      const format = String(i.format);
      if (format === "regex") return `must match the pattern ${String(i.pattern)} ${got}`;
      if (format === "starts_with") return `must start with ${JSON.stringify(i.prefix)} ${got}`;
      if (format === "ends_with") return `must end with ${JSON.stringify(i.suffix)} ${got}`;
      if (format === "includes") return `must contain ${JSON.stringify(i.includes)} ${got}`;
      return `must be ${FORMAT_NAMES[format] ?? `a valid ${format}`} ${got}`;
    }
    case "not_multiple_of":
      return `must be a multiple of ${String(i.divisor)} ${got}`;
    case "unrecognized_keys": {
      const keys = (i.keys as string[]) ?? [];
      return `unknown key${keys.length === 1 ? "" : "s"} ${quoteAll(keys)}`;
    }
    case "invalid_union":
      return unionHint(i.errors as z.core.$ZodIssue[][] | undefined, issue.input);
    case "invalid_key":
      return `has an invalid key ${got}`;
    case "invalid_element":
      return "has an invalid element";
    default:
      return `is invalid ${got}`;
  }
}

function unionHint(branches: z.core.$ZodIssue[][] | undefined, input: unknown): string {
  const got = `(got ${describeValue(input)})`;
  if (!branches || branches.length === 0) return `does not match any allowed form ${got}`;
  const typeOnly = branches.every((b) => b.length === 1 && b[0]?.code === "invalid_type" && b[0].path.length === 0);
  if (typeOnly) {
    const names = branches.map((b) => typeName(String((b[0] as { expected?: unknown }).expected)));
    return `must be ${[...new Set(names)].join(" or ")} ${got}`;
  }
  const best = branches.reduce((a, b) => (b.length < a.length ? b : a));
  const shown = best
    .slice(0, MAX_CLOSEST)
    .map((x) => (x.path.length > 0 ? `${formatPath(x.path)}: ${x.message}` : x.message));
  const rest = best.length - shown.length;
  if (rest > 0) shown.push(`and ${rest} more problem${rest === 1 ? "" : "s"}`);
  return `does not match any allowed form; closest: ${shown.join("; ")}`;
}

/** `filters.tags[2]` from a Zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/**
 * Turns final Zod issues into hint issues, at most `limit` of them (the caller counts the rest); a
 * message that repeats its own key drops the repeat.
 */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[], limit = issues.length): ValidationIssue[] {
  return issues.slice(0, limit).map((issue) => {
    const path = formatPath(issue.path);
    const last = issue.path[issue.path.length - 1];
    let message = issue.message;
    if (typeof last === "string" && message.startsWith(`${last} `)) message = message.slice(last.length + 1);
    return { path, message };
  });
}
