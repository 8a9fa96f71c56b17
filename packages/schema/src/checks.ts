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

function hasDescription(schema: JsonSchema): boolean {
  if (typeof schema.description === "string" && schema.description.trim() !== "") return true;
  // `.describe()` on an inner schema of a union or nullable lands on the branch.
  const branches = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as JsonSchema[] | undefined;
  return Array.isArray(branches) && branches.some((b) => typeof b.description === "string" && b.description !== "");
}

/** Every input property, at every depth, has a description (C13). */
export function checkInputDescriptions(label: string, schema: JsonSchema, at = ""): void {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties) {
    for (const [name, sub] of Object.entries(properties)) {
      const path = at === "" ? name : `${at}.${name}`;
      if (!hasDescription(sub)) {
        throw new DefinitionError(
          label,
          "C13",
          `input property "${path}" has no description; add .describe("what it is and what values work")`,
        );
      }
      checkInputDescriptions(label, sub, path);
    }
  }
  const items = schema.items as JsonSchema | undefined;
  if (items && typeof items === "object" && !Array.isArray(items)) checkInputDescriptions(label, items, `${at}[]`);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const branches = schema[key] as JsonSchema[] | undefined;
    if (Array.isArray(branches)) for (const b of branches) checkInputDescriptions(label, b, at);
  }
}
