import { DefinitionError } from "./definition-error.js";

/** RFC 6749 section 3.3 `scope-token`: printable ASCII except space, `"` and `\`. */
export const SCOPE_TOKEN_PATTERN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** OAuth scopes a caller's token must all hold to see and use a definition (or everything in a pack). */
export type RequiredScopes = readonly string[];

const NONE: RequiredScopes = Object.freeze([]);

/** Checks `requiredScopes` when a definition is made (C13); returns a frozen copy, [] when absent. */
export function checkRequiredScopes(label: string, scopes: unknown): RequiredScopes {
  if (scopes === undefined) return NONE;
  if (!Array.isArray(scopes)) {
    throw new DefinitionError(
      label,
      "C13",
      `requiredScopes must be a list of scope strings such as ["notes:admin"], got ${JSON.stringify(scopes)}`,
    );
  }
  const seen = new Set<string>();
  scopes.forEach((scope: unknown, index) => {
    if (typeof scope !== "string" || !SCOPE_TOKEN_PATTERN.test(scope)) {
      throw new DefinitionError(
        label,
        "C13",
        `requiredScopes[${index}] must be one scope token (printable ASCII without spaces, '"' or '\\'), such as "notes:admin", got ${JSON.stringify(scope)}; list several scopes as separate strings`,
      );
    }
    if (seen.has(scope)) {
      throw new DefinitionError(label, "C13", `requiredScopes names "${scope}" twice; list each scope once`);
    }
    seen.add(scope);
  });
  return scopes.length === 0 ? NONE : Object.freeze([...(scopes as string[])]);
}
