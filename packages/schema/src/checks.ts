import { DefinitionError } from "./definition-error.js";
import type { JsonSchema } from "./json-schema.js";

export const NAME_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

export function checkName(label: string, name: unknown): void {
  if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
    throw new DefinitionError(
      label,
      "C13",
      `name must match ${NAME_PATTERN} (1-128 letters, digits, ".", "_" or "-"), got ${JSON.stringify(name)}`,
    );
  }
}

export function checkText(label: string, field: string, value: unknown): void {
  if (typeof value !== "string" || value.trim() === "") {
    throw new DefinitionError(
      label,
      "C13",
      `${field} must be a non-empty string that tells the model what this is for`,
    );
  }
}

export function checkTimeout(label: string, timeoutMs: unknown): void {
  if (timeoutMs === undefined) return;
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new DefinitionError(
      label,
      "C13",
      `timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`,
    );
  }
}

type Definitions = Record<string, JsonSchema>;

function resolve(schema: JsonSchema, definitions: Definitions): JsonSchema | undefined {
  const ref = schema.$ref;
  if (typeof ref !== "string") return undefined;
  const name = ref.replace(/^#\/(definitions|\$defs)\//, "");
  return definitions[name];
}

/** The description of a published schema node, wherever Zod put it. */
export function descriptionOf(schema: JsonSchema, definitions: Definitions = {}): string | undefined {
  if (typeof schema.description === "string" && schema.description.trim() !== "") return schema.description;
  const target = resolve(schema, definitions);
  if (target && typeof target.description === "string" && target.description.trim() !== "") return target.description;
  // `.describe()` on an inner schema of a union or nullable lands on the branch.
  const branches = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as JsonSchema[] | undefined;
  if (!Array.isArray(branches)) return undefined;
  for (const b of branches) {
    const found = descriptionOf(b, definitions);
    if (found !== undefined) return found;
  }
  return undefined;
}

function hasDescription(schema: JsonSchema, definitions: Definitions): boolean {
  return descriptionOf(schema, definitions) !== undefined;
}

/** Every input property, at every depth, has a description (C13). */
export function checkInputDescriptions(
  label: string,
  schema: JsonSchema,
  fix = '.describe("what it is and what values work")',
): void {
  const definitions = ((schema.definitions ?? schema.$defs) as Definitions | undefined) ?? {};
  walk(label, schema, "", definitions, fix);
  // Recursive parts are published once, as definitions; each is checked once.
  for (const [name, definition] of Object.entries(definitions)) walk(label, definition, `(${name})`, definitions, fix);
}

function walk(label: string, schema: JsonSchema, at: string, definitions: Definitions, fix: string): void {
  if (typeof schema.$ref === "string") return;
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties) {
    for (const [name, sub] of Object.entries(properties)) {
      const path = at === "" ? name : `${at}.${name}`;
      if (!hasDescription(sub, definitions)) {
        throw new DefinitionError(label, "C13", `input property "${path}" has no description; add ${fix}`);
      }
      walk(label, sub, path, definitions, fix);
    }
  }
  const items = schema.items as JsonSchema | undefined;
  if (items && typeof items === "object" && !Array.isArray(items)) walk(label, items, `${at}[]`, definitions, fix);
  const extra = schema.additionalProperties as JsonSchema | boolean | undefined;
  if (extra && typeof extra === "object") walk(label, extra, `${at}{}`, definitions, fix);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const branches = schema[key] as JsonSchema[] | undefined;
    if (Array.isArray(branches)) for (const b of branches) walk(label, b, at, definitions, fix);
  }
}
