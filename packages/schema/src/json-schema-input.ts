import { createRequire } from "node:module";
import type { ValidationIssue } from "@toolshed/errors";
import type { Ajv, ValidateFunction } from "ajv";
import { coerceFromAjv, issuesFromAjv } from "./ajv-hints.js";
import { failed, MAX_LISTED_ISSUES, type ParseOptions, type ParseResult, textIssues } from "./arguments.js";
import type { Coercion } from "./coerce.js";
import type { JsonSchema } from "./json-schema.js";

const JSON_SCHEMA_INPUT = Symbol.for("toolshed.dev/JsonSchemaInput");

/**
 * A JSON Schema document used as a tool's input or output, with the TypeScript type of the values
 * it admits (`jsonSchema<{ city: string }>({ … })`). A plain document works too; its values are
 * then typed as `Record<string, unknown>`.
 */
export interface JsonSchemaInput<T = Record<string, unknown>> {
  readonly [JSON_SCHEMA_INPUT]: true;
  readonly document: JsonSchema;
  /** Types only: the values the document admits. */
  readonly __type?: T;
}

/** Marks a JSON Schema document (2020-12 unless its `$schema` says draft-07) and names its type. */
export function jsonSchema<T = Record<string, unknown>>(document: JsonSchema): JsonSchemaInput<T> {
  return Object.freeze({ [JSON_SCHEMA_INPUT]: true as const, document });
}

export function isJsonSchemaInput(value: unknown): value is JsonSchemaInput<unknown> {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[JSON_SCHEMA_INPUT] === true;
}

/** A plain JSON Schema document: an object that is neither a Zod schema nor a Standard Schema. */
export function isJsonSchemaDocument(value: unknown): value is JsonSchema {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return !("_zod" in value) && !("~standard" in value);
}

const DIALECTS = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "http://json-schema.org/draft-07/schema#": "draft-07",
  "http://json-schema.org/draft-07/schema": "draft-07",
} as const;
type Dialect = (typeof DIALECTS)[keyof typeof DIALECTS];

// Ajv is loaded on the first JSON Schema definition: a server of Zod tools never pays for it.
const load = createRequire(import.meta.url);
const validators = new Map<Dialect, Ajv>();

function ajvFor(dialect: Dialect): Ajv {
  let ajv = validators.get(dialect);
  if (ajv) return ajv;
  const Ajv = (dialect === "2020-12" ? load("ajv/dist/2020") : load("ajv")).default;
  ajv = new Ajv({
    allErrors: true,
    verbose: true,
    // Keywords Ajv does not know (x-…, OpenAPI's) are annotations; the meta-schema still checks the rest.
    strict: false,
    // Two tools may publish one document with one $id; each compiles on its own.
    addUsedSchema: false,
  }) as Ajv;
  load("ajv-formats").default(ajv);
  validators.set(dialect, ajv);
  return ajv;
}

const MAX_COERCION_ROUNDS = 4;

/** Why a document cannot be used; the caller turns it into a DefinitionError. */
export class JsonSchemaDocumentError extends Error {}

/**
 * A compiled JSON Schema document: published as written (copied, `$ref` and `$defs` kept), and
 * checked with Ajv. Only references inside the document resolve; nothing is fetched.
 */
export interface CompiledJsonSchema {
  readonly published: JsonSchema;
  parse(args: unknown, options: ParseOptions): ParseResult<unknown>;
  /** The value's problems (an output check); none when it is valid. */
  check(value: unknown): ValidationIssue[];
}

export function compileJsonSchema(document: JsonSchema): CompiledJsonSchema {
  const declared = document.$schema;
  let dialect: Dialect = "2020-12";
  if (declared !== undefined) {
    const known = DIALECTS[declared as keyof typeof DIALECTS];
    if (known === undefined) {
      throw new JsonSchemaDocumentError(
        `$schema ${JSON.stringify(declared)} is not supported; use "https://json-schema.org/draft/2020-12/schema" (the default when $schema is left out) or "http://json-schema.org/draft-07/schema#"`,
      );
    }
    dialect = known;
  }
  let published: JsonSchema;
  try {
    published = structuredClone(document);
  } catch {
    throw new JsonSchemaDocumentError("the document must be plain JSON data (objects, arrays, strings, numbers)");
  }
  let validate: ValidateFunction;
  try {
    validate = ajvFor(dialect).compile(published);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const hint = /can't resolve reference/i.test(detail)
      ? "; only references inside the document resolve (#/$defs/…), nothing is fetched"
      : "";
    throw new JsonSchemaDocumentError(`the document is not a valid JSON Schema ${dialect}: ${detail}${hint}`);
  }
  // Hints are rendered once, for the answer: the coercion rounds only need Ajv's errors.
  const attempt = (value: unknown) => {
    const text = textIssues(value);
    const valid = validate(value) && text.issues.length === 0;
    return { value, valid, text, errors: validate.errors ?? [] };
  };
  const refused = (a: ReturnType<typeof attempt>) => {
    const ajv = issuesFromAjv(a.errors, a.value, MAX_LISTED_ISSUES);
    return failed([...a.text.issues, ...ajv.issues], a.text.more + ajv.more);
  };
  return {
    published,
    parse(args, options) {
      const sent = args === undefined || args === null ? {} : args;
      const first = attempt(sent);
      if (first.valid) return { success: true, data: sent };
      if (options.coerce !== true) return refused(first);
      // A slip taken can uncover one inside it (an array sent as JSON text, holding "4" for 4).
      let last = first;
      const coercions: Coercion[] = [];
      for (let round = 0; round < MAX_COERCION_ROUNDS && !last.valid; round++) {
        const coerced = coerceFromAjv(last.errors, last.value);
        if (coerced === undefined) break;
        coercions.push(...coerced.coercions);
        last = attempt(coerced.value);
      }
      if (coercions.length === 0) return refused(first);
      return last.valid ? { success: true, data: last.value, coercions } : refused(last);
    },
    check(value) {
      return validate(value) ? [] : issuesFromAjv(validate.errors ?? [], value, MAX_LISTED_ISSUES).issues;
    },
  };
}
