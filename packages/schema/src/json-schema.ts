import { z } from "zod";

/** A JSON Schema document as published in tools/list. */
export type JsonSchema = { [key: string]: unknown };

// Formats that draft-07 and 2020-12 validators both know, or ignore as annotations.
const PORTABLE_FORMATS = new Set([
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uri-template",
  "uuid",
  "json-pointer",
  "relative-json-pointer",
  "regex",
]);

// Keywords whose values are instance data, not schemas.
const DATA_KEYS = new Set(["default", "const", "enum", "examples"]);

export class NonPortableSchemaError extends Error {}

/**
 * Converts a Zod schema to JSON Schema that means the same in draft-07 and 2020-12 (C5): no
 * `$schema`, no tuple forms, no non-standard formats; objects closed to unknown keys unless the
 * schema says otherwise (input only).
 */
export function toPortableJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  let raw: JsonSchema;
  try {
    raw = z.toJSONSchema(schema, { target: "draft-07", io, unrepresentable: "throw", cycles: "ref" }) as JsonSchema;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new NonPortableSchemaError(
      `${io} schema cannot be expressed in JSON Schema (${detail}); use JSON types: strings (z.iso.datetime() for dates), numbers, booleans, arrays, objects`,
    );
  }
  delete raw.$schema;
  return clean(raw, io, "") as JsonSchema;
}

function clean(node: unknown, io: "input" | "output", at: string): unknown {
  if (Array.isArray(node)) return node.map((n, i) => clean(n, io, `${at}/${i}`));
  if (typeof node !== "object" || node === null) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "format" && typeof value === "string" && !PORTABLE_FORMATS.has(value)) continue;
    if (DATA_KEYS.has(key)) {
      out[key] = value;
      continue;
    }
    if (key === "prefixItems" || (key === "items" && Array.isArray(value))) {
      throw new NonPortableSchemaError(
        `${io} schema uses a tuple at ${at || "/"}, which draft-07 and 2020-12 read differently; use an object or z.array()`,
      );
    }
    if (key === "properties" || key === "definitions" || key === "$defs" || key === "patternProperties") {
      const props: JsonSchema = {};
      for (const [name, sub] of Object.entries(value as JsonSchema))
        props[name] = clean(sub, io, `${at}/${key}/${name}`);
      out[key] = props;
      continue;
    }
    out[key] = clean(value, io, `${at}/${key}`);
  }
  // `type: [a, b]` means the same in both drafts, but strict validators (Ajv's strictTypes)
  // refuse it; anyOf says the same thing to all of them.
  if (Array.isArray(out.type)) {
    const types = out.type as string[];
    delete out.type;
    out.anyOf = types.map((type) => ({ type }));
  }
  // Zod gives every integer the safe range as bounds; they tell a model nothing and cost tokens
  // (Zod still refuses unsafe integers). Bounds an author set are kept.
  if (out.type === "integer") {
    if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
    if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  }
  if (io === "input" && out.type === "object" && out.additionalProperties === undefined && out.properties) {
    out.additionalProperties = false;
  }
  return out;
}

/** True when the JSON Schema describes only objects (C1); anything else is wrapped (C2). */
export function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === "object";
}

/** The published output schema of a non-object result (C2). */
export function wrapResultSchema(schema: JsonSchema): JsonSchema {
  return { type: "object", properties: { result: schema }, required: ["result"] };
}
