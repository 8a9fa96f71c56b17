import { SCOPES } from "./tokens.js";

export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/**
 * The OAuth protected resource metadata (RFC 9728) for the MCP endpoint at `base + path`;
 * `scopes` is what the server supports (default SCOPES; pass the tools' own scopes too).
 */
export function resourceMetadata(
  base: string,
  path: string,
  name: string,
  issuer: string | undefined,
  scopes: readonly string[] = SCOPES,
) {
  return {
    resource: `${base}${path}`,
    ...(issuer === undefined ? {} : { authorization_servers: [issuer] }),
    scopes_supported: [...new Set([...SCOPES, ...scopes])],
    bearer_methods_supported: ["header"],
    resource_name: name,
  };
}

/** `Bearer resource_metadata="…"`, plus the RFC 6750 error when a token was sent. */
export function wwwAuthenticate(base: string, error?: string, description?: string, scope?: string): string {
  const parts = [`resource_metadata="${base}${RESOURCE_METADATA_PATH}"`];
  // RFC 6750: a request that sent no token gets no error details.
  if (error) parts.push(`error="${error}"`);
  if (error && description) parts.push(`error_description="${description.replace(/["\\]/g, "'")}"`);
  if (scope) parts.push(`scope="${scope}"`);
  return `Bearer ${parts.join(", ")}`;
}
