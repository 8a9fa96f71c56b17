import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import type { ValidationIssue } from "@toolshed/errors";
import { failed, MAX_LISTED_ISSUES, type ParseResult, textIssues } from "./arguments.js";
import { formatPath } from "./hints.js";
import type { JsonSchema } from "./json-schema.js";

// Schemas of other libraries through Standard Schema (`~standard`): Valibot, ArkType and the rest.
// The published JSON Schema comes from the library (Standard JSON Schema, `~standard.jsonSchema`).

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { "~standard"?: { version?: unknown; validate?: unknown } } | null)?.["~standard"];
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    props?.version === 1 &&
    typeof props.validate === "function"
  );
}

/** Why a schema cannot be used; the caller turns it into a DefinitionError. */
export class StandardSchemaError extends Error {}

export interface CompiledStandardSchema {
  readonly published: JsonSchema;
  parse(args: unknown): ParseResult<unknown>;
  /** The value's problems (an output check) and the value the schema gives back. */
  check(value: unknown): { issues: ValidationIssue[]; data?: unknown };
}

function published(schema: StandardSchemaV1, io: "input" | "output"): JsonSchema {
  const props = schema["~standard"] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>;
  const convert = props.jsonSchema?.[io];
  if (typeof convert !== "function") {
    throw new StandardSchemaError(
      `a ${props.vendor} schema without Standard JSON Schema (~standard.jsonSchema) cannot be published in tools/list; use a library version that has it (ArkType 2.1.28+, Valibot with toStandardJsonSchema() of @valibot/to-json-schema) or pass jsonSchema(document)`,
    );
  }
  try {
    return convert({ target: "draft-2020-12" }) as JsonSchema;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new StandardSchemaError(`the ${props.vendor} schema cannot be expressed in JSON Schema: ${detail}`);
  }
}

function validated(schema: StandardSchemaV1, value: unknown): StandardSchemaV1.Result<unknown> {
  const result = schema["~standard"].validate(value);
  if (result instanceof Promise) {
    throw new Error(
      `the ${schema["~standard"].vendor} schema validates asynchronously, which Toolshed does not support; use synchronous checks`,
    );
  }
  return result;
}

/** The first `limit` issues as hints: a library may phrase each message only when it is read. */
function issuesOf(issues: readonly StandardSchemaV1.Issue[], limit = issues.length): ValidationIssue[] {
  return issues.slice(0, limit).map((issue) => {
    const keys = (issue.path ?? []).map((p) => (typeof p === "object" && p !== null ? p.key : p));
    const last = keys[keys.length - 1];
    let message = issue.message;
    // "city must be a string": the path is said once, in front.
    if (typeof last === "string" && message.startsWith(`${last} `)) message = message.slice(last.length + 1);
    return { path: formatPath(keys), message };
  });
}

export function compileStandardSchema(schema: StandardSchemaV1, io: "input" | "output"): CompiledStandardSchema {
  const document = published(schema, io);
  // An async schema would fail every call: say so now.
  const probe = schema["~standard"].validate({});
  if (probe instanceof Promise) {
    probe.catch(() => {});
    throw new StandardSchemaError(
      `the ${schema["~standard"].vendor} schema validates asynchronously, which Toolshed does not support; use its synchronous form`,
    );
  }
  return {
    published: document,
    parse(args) {
      const sent = args === undefined || args === null ? {} : args;
      const text = textIssues(sent);
      const result = validated(schema, sent);
      if (result.issues === undefined && text.issues.length === 0) return { success: true, data: result.value };
      const all = result.issues ?? [];
      const listed = issuesOf(all, MAX_LISTED_ISSUES);
      return failed([...text.issues, ...listed], text.more + all.length - listed.length);
    },
    check(value) {
      const result = validated(schema, value);
      return result.issues === undefined ? { issues: [], data: result.value } : { issues: issuesOf(result.issues) };
    },
  };
}
