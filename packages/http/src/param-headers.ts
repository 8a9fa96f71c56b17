import type { HeaderParam } from "@toolshed/schema";
import { decodeHeaderValue, type HeaderReader } from "./wire.js";

// `Mcp-Param-{name}` headers (2026-07-28, SEP-2243): a tool parameter marked `x-mcp-header` travels
// in a header too, so that a proxy can route on it. The header must say what the body says: a
// proxy and this server must never act on two different values.

// A plain header value: visible ASCII, space and tab (RFC 9110 field values, as the revision asks).
const PLAIN = /^[\t\x20-\x7e]*$/;

function valueAt(args: unknown, path: readonly string[]): unknown {
  let at = args;
  for (const key of path) {
    if (typeof at !== "object" || at === null || Array.isArray(at) || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * Whether the header text (decoded) says the body's value, in the one spelling the revision
 * defines: a string as it is, an integer in decimal digits (`7`, not `07`, `7.0` or `0x7`), a
 * boolean as `true` or `false`. A value of another type is compared the same way, so a header
 * cannot vouch for text the tool would read as something else; an object or array is left to the
 * schema, which refuses it (C6).
 */
function says(text: string, value: unknown): boolean {
  if (typeof value === "object") return true;
  return text === String(value);
}

/** Integers a header can carry exactly (the revision's safe range). */
const unsafeInteger = (value: unknown, type: HeaderParam["type"]) =>
  type === "integer" && typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value);

/**
 * The mismatch of a 2026-07-28 tools/call's `Mcp-Param-*` headers with its arguments (HTTP 400,
 * -32020), or undefined when they agree: a header for every parameter that has a value, none for one
 * that has not, each valid (`=?base64?…?=` decoded first) and equal to the body's value.
 */
export function checkParamHeaders(
  headers: HeaderReader,
  args: unknown,
  params: readonly HeaderParam[],
): string | undefined {
  for (const param of params) {
    const header = `Mcp-Param-${param.name}`;
    const argument = `arguments.${param.path.join(".")}`;
    const value = valueAt(args, param.path);
    const raw = headers.get(header.toLowerCase());
    if (value === undefined || value === null) {
      if (raw === null) continue;
      return `Header mismatch: the ${header} header is sent, but ${argument} has no value; leave the header out, or send the argument`;
    }
    if (raw === null) {
      return `Header mismatch: the ${header} header is required when ${argument} has a value (send ${JSON.stringify(String(value))}, =?base64?…?= encoded when it is not plain ASCII)`;
    }
    // Whitespace around a field value is not part of it (RFC 9110 §5.5).
    const trimmed = raw.replace(/^[\t ]+|[\t ]+$/g, "");
    const text = trimmed.startsWith("=?base64?") && trimmed.endsWith("?=") ? decodeHeaderValue(trimmed) : trimmed;
    if (text === undefined) {
      return `Header mismatch: the ${header} header is not valid =?base64?…?= encoding (Base64 with its = padding, between =?base64? and ?=)`;
    }
    if (text === trimmed && !PLAIN.test(text)) {
      return `Header mismatch: the ${header} header has characters a plain header value cannot carry; send =?base64?…?= with the Base64 of its UTF-8`;
    }
    if (unsafeInteger(value, param.type)) {
      return `Header mismatch: ${argument} ${value} is beyond the integers ${header} can carry exactly (-9007199254740991 to 9007199254740991); send a smaller value`;
    }
    if (!says(text, value)) {
      const spelling = typeof value === "string" ? "" : `; send ${JSON.stringify(String(value))}`;
      return `Header mismatch: ${header} header ${JSON.stringify(text)} does not match ${argument} ${JSON.stringify(value)}${spelling}`;
    }
  }
  return undefined;
}
