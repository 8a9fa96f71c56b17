import type { Coercion } from "./coerce.js";
import { DefinitionError } from "./definition-error.js";
import { formatPath } from "./hints.js";
import type { JsonSchema } from "./json-schema.js";

// `x-mcp-header` (2026-07-28, SEP-2243): a tool parameter mirrored into an `Mcp-Param-{name}` HTTP
// header, so that a proxy can route on it. The rules of the revision are checked when the tool is
// defined, as a client would check them before it keeps the tool.

export const HEADER_KEYWORD = "x-mcp-header";

/** One parameter a client sends as an `Mcp-Param-{name}` header too. */
export interface HeaderParam {
  /** The `x-mcp-header` value: the header is `Mcp-Param-{name}`. */
  readonly name: string;
  /** The chain of `properties` keys from the schema root to the parameter. */
  readonly path: readonly string[];
  readonly type: "string" | "integer" | "boolean";
}

// RFC 9110 token: the characters a header field name may use.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVES = new Set(["string", "integer", "boolean"]);

const isObject = (v: unknown): v is JsonSchema => typeof v === "object" && v !== null && !Array.isArray(v);

// Keywords whose values are data, not schemas: an "x-mcp-header" key inside them is not an annotation.
const DATA_KEYS = new Set(["default", "const", "enum", "examples"]);

/** The one primitive type a property takes, null allowed beside it; undefined for anything else. */
function primitiveType(schema: JsonSchema): string | undefined {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t) => t !== "null");
  if (types.length === 1 && PRIMITIVES.has(types[0] as string)) return types[0] as string;
  if (schema.type === undefined && Array.isArray(schema.anyOf)) {
    const branches = (schema.anyOf as JsonSchema[]).filter((b) => !(isObject(b) && b.type === "null"));
    if (branches.length === 1 && isObject(branches[0])) return primitiveType(branches[0]);
  }
  return undefined;
}

/** Every schema object carrying the keyword, anywhere in the document. */
function annotated(node: unknown, found: Set<unknown>, depth = 0): void {
  if (depth > 64) return;
  if (Array.isArray(node)) {
    for (const item of node) annotated(item, found, depth + 1);
    return;
  }
  if (!isObject(node)) return;
  if (Object.hasOwn(node, HEADER_KEYWORD)) found.add(node);
  for (const [key, value] of Object.entries(node)) if (!DATA_KEYS.has(key)) annotated(value, found, depth + 1);
}

/**
 * The `x-mcp-header` parameters of a published input schema, checked (C13): a non-empty token,
 * unique regardless of case, on a string, integer or boolean property reached from the root through
 * `properties` alone (not through items, $ref, anyOf or if/then/else).
 */
export function headerParams(label: string, schema: JsonSchema): HeaderParam[] {
  const all = new Set<unknown>();
  annotated(schema, all);
  if (all.size === 0) return [];
  const params: HeaderParam[] = [];
  const reached = new Set<unknown>();
  const seen = new Map<string, string>();
  const walk = (node: JsonSchema, path: string[]) => {
    const properties = node.properties;
    if (!isObject(properties)) return;
    for (const [key, sub] of Object.entries(properties)) {
      if (!isObject(sub)) continue;
      const at = [...path, key];
      if (Object.hasOwn(sub, HEADER_KEYWORD)) {
        reached.add(sub);
        params.push(checked(label, sub, at, seen));
      }
      walk(sub, at);
    }
  };
  walk(schema, []);
  for (const node of all) {
    if (reached.has(node)) continue;
    throw new DefinitionError(
      label,
      "C13",
      `${HEADER_KEYWORD} ${JSON.stringify((node as JsonSchema)[HEADER_KEYWORD])} is on a schema that is not a property reached from the input's root through "properties" alone (not inside items, $ref, $defs, anyOf/oneOf/allOf or if/then/else); move it to such a property or leave it out`,
    );
  }
  return params;
}

function checked(label: string, schema: JsonSchema, path: string[], seen: Map<string, string>): HeaderParam {
  const name = schema[HEADER_KEYWORD];
  const where = `input property "${path.join(".")}"`;
  if (typeof name !== "string" || !TOKEN.test(name)) {
    throw new DefinitionError(
      label,
      "C13",
      `${where}: ${HEADER_KEYWORD} must be a header name token (letters, digits and !#$%&'*+-.^_\`|~, no spaces or control characters), such as "Region"; got ${JSON.stringify(name)}`,
    );
  }
  const folded = name.toLowerCase();
  const other = seen.get(folded);
  if (other !== undefined) {
    throw new DefinitionError(
      label,
      "C13",
      `${where}: ${HEADER_KEYWORD} "${name}" is already used by input property "${other}" (header names ignore case); give each its own`,
    );
  }
  seen.set(folded, path.join("."));
  const type = primitiveType(schema);
  if (type === undefined) {
    throw new DefinitionError(
      label,
      "C13",
      `${where}: ${HEADER_KEYWORD} needs a string, integer or boolean property (not a number, object or array); got type ${JSON.stringify(schema.type ?? "(none)")}`,
    );
  }
  return { name, path, type: type as HeaderParam["type"] };
}

/** Each header parameter's path as a coercion names it (`filters.region`). */
export function headerPaths(params: readonly HeaderParam[]): string[] {
  return params.map((p) => formatPath(p.path));
}

/**
 * Whether lax coercion changed a header parameter, or an object holding one (a renamed key, an
 * object sent as JSON text). Such a call is parsed as sent instead: an `Mcp-Param-*` header
 * carries the body's value as sent, and the tool must run on what a gateway routing on it saw.
 */
export function coercesHeaderParam(coercions: readonly Coercion[], paths: readonly string[]): boolean {
  return coercions.some((c) => paths.some((p) => p === c.path || p.startsWith(`${c.path}.`)));
}
