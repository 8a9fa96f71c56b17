import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { ValidationIssue } from "@toolshed/errors";
import type { z } from "zod";
import { type ParseOptions, type ParseResult, parseArguments } from "./arguments.js";
import { DefinitionError } from "./definition-error.js";
import { type JsonSchema, NonPortableSchemaError, toPortableJsonSchema } from "./json-schema.js";
import {
  compileJsonSchema,
  isJsonSchemaDocument,
  isJsonSchemaInput,
  JsonSchemaDocumentError,
  type JsonSchemaInput,
} from "./json-schema-input.js";
import { compileStandardSchema, isStandardSchema, StandardSchemaError } from "./standard-input.js";

// The object a tool's arguments, a prompt's arguments or a template's variables are checked
// against, in any of the three kinds an author may write it: one path for all three definitions.

type ZodObjectSchema = z.ZodObject<z.core.$ZodLooseShape>;

/**
 * An object of named values: a Zod object, a JSON Schema document (plain, or `jsonSchema<T>(document)`
 * to type it) whose root is `{ "type": "object" }`, or a Standard Schema with Standard JSON Schema
 * (ArkType, Valibot through `toStandardJsonSchema`).
 */
// biome-ignore lint/suspicious/noExplicitAny: any Standard Schema, whatever its types
export type ObjectInput = ZodObjectSchema | JsonSchemaInput<any> | StandardSchemaV1<any, any> | JsonSchema;

/** The values a handler gets for an input schema of any kind. */
export type InputValues<I> = I extends z.ZodType
  ? z.output<I>
  : I extends JsonSchemaInput<infer T>
    ? T
    : I extends StandardSchemaV1<unknown, infer O>
      ? O
      : Record<string, unknown>;

/** How a definition's schemas were written. */
export type SchemaKind = "zod" | "json-schema" | "standard";

export type ObjectSchema = JsonSchema & { type: "object" };

/** How an author adds a missing description, in each kind of schema (C13). */
export const DESCRIBE: Record<SchemaKind, string> = {
  zod: '.describe("what it is and what values work")',
  "json-schema": '"description": "what it is and what values work"',
  standard: "a description (ArkType .describe(), Valibot v.description())",
};

/** An input compiled once at definition: what is published and how values are checked. */
export interface CompiledInput {
  kind: SchemaKind;
  published: ObjectSchema;
  parse(args: unknown, options: ParseOptions): ParseResult<unknown>;
}

// Prompt arguments and template variables arrive as strings: a JSON Schema property of type integer
// or boolean takes "3" or "true" (Zod schemas say so themselves, with z.coerce).
const STRICT: ParseOptions = Object.freeze({ coerce: false });
const FROM_STRINGS: ParseOptions = Object.freeze({ coerce: true });

/** Checks values that arrive as strings (prompt arguments, URI template variables). */
export function parseStringValues(input: CompiledInput, values: unknown): ParseResult<unknown> {
  return input.parse(values, input.kind === "zod" ? STRICT : FROM_STRINGS);
}

export const isZod = (schema: unknown): schema is z.ZodType =>
  typeof schema === "object" && schema !== null && "_zod" in schema;

/** A Zod schema as JSON Schema, its non-portable parts a definition error (C5). */
export function zodSchemaFor(label: string, schema: z.ZodType, io: "input" | "output"): JsonSchema {
  try {
    return toPortableJsonSchema(schema, io);
  } catch (error) {
    if (error instanceof NonPortableSchemaError) throw new DefinitionError(label, "C5", error.message);
    throw error;
  }
}

/** The document a JSON Schema input or output is written as, or undefined for other kinds. */
function documentOf(schema: unknown): JsonSchema | undefined {
  if (isJsonSchemaInput(schema)) return schema.document;
  return isJsonSchemaDocument(schema) ? schema : undefined;
}

/** A compiled JSON Schema document or Standard Schema. */
export interface CompiledOther {
  kind: SchemaKind;
  published: JsonSchema;
  parse(args: unknown, o: ParseOptions): ParseResult<unknown>;
  issues(value: unknown): { issues: ValidationIssue[]; data?: unknown };
}

/** Compiles a JSON Schema document or Standard Schema; their faults are definition errors (C5). */
export function compileOther(
  label: string,
  schema: unknown,
  io: "input" | "output",
  field: string = io,
): CompiledOther | undefined {
  try {
    const document = documentOf(schema);
    if (document !== undefined) {
      const compiled = compileJsonSchema(document);
      return {
        kind: "json-schema",
        published: compiled.published,
        parse: compiled.parse,
        issues: (value) => ({ issues: compiled.check(value), data: value }),
      };
    }
    if (isStandardSchema(schema)) {
      const compiled = compileStandardSchema(schema, io);
      return { kind: "standard", published: compiled.published, parse: compiled.parse, issues: compiled.check };
    }
    return undefined;
  } catch (error) {
    if (error instanceof JsonSchemaDocumentError || error instanceof StandardSchemaError) {
      throw new DefinitionError(label, "C5", `${field} schema: ${error.message}`);
    }
    throw error;
  }
}

const notAnObject = (field: string, example: string) =>
  `${field} must be a Zod object (z.object({ ${example}: z.string().describe("…") })), a JSON Schema document ({ type: "object", properties: { … } }) or a Standard Schema with JSON Schema (ArkType, Valibot through toStandardJsonSchema)`;

/**
 * Compiles the object schema of a definition's `field` (a tool's input, a prompt's args, a
 * template's params), whichever kind it is written in; anything else is a definition error (C5).
 */
export function compileObjectInput(label: string, field: string, example: string, schema: unknown): CompiledInput {
  if (isZod(schema)) {
    if ((schema as { _zod?: { def?: { type?: string } } })._zod?.def?.type !== "object") {
      throw new DefinitionError(label, "C5", notAnObject(field, example));
    }
    const published = zodSchemaFor(label, schema, "input") as ObjectSchema;
    return { kind: "zod", published, parse: (args, options) => parseArguments(schema, args, options) };
  }
  // The SDK's McpServer takes a raw shape ({ query: z.string() }): say how to write it here.
  if (isJsonSchemaDocument(schema) && Object.values(schema).some(isZod)) {
    throw new DefinitionError(
      label,
      "C5",
      `${field} is an object of Zod schemas (a raw shape); wrap it in z.object({ … }) so that it is one Zod object`,
    );
  }
  const other = compileOther(label, schema, "input", field);
  if (other === undefined) throw new DefinitionError(label, "C5", notAnObject(field, example));
  if (other.published.type !== "object") {
    throw new DefinitionError(
      label,
      "C5",
      `${field} schema must describe an object ({ "type": "object", … }): ${field === "input" ? "arguments are" : `${field} are`} always an object (got type ${JSON.stringify(other.published.type)})`,
    );
  }
  return { kind: other.kind, published: other.published as ObjectSchema, parse: other.parse };
}
