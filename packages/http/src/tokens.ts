import { HttpConfigError } from "./http-errors.js";

/** The scopes every server knows: `tools:read` lists and calls read-only tools, `tools:write` every tool. */
export const SCOPES = ["tools:read", "tools:write"] as const;
export type Scope = (typeof SCOPES)[number];

/** RFC 6749 section 3.3 scope-token: printable ASCII but space, `"` and `\`. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * A static bearer token; `id` is what logs show, never the token itself. Tokens may share an id
 * (a read and a write token of one client): each is still its own caller (auth.ts).
 */
export interface StaticToken {
  id: string;
  token: string;
  /**
   * `tools:read` and/or `tools:write`, plus any scope a tool requires (`notes:admin`); the
   * authenticator refuses scopes the server does not support (AuthOptions.scopesSupported).
   */
  scopes: string[];
  /** Requests per minute for this token instead of --rate-limit (JSON `rate_limit`; 0 = unlimited). */
  rateLimit?: number;
}

const MIN_TOKEN_LENGTH = 16;
// RFC 6750 b64token: what may follow "Bearer " in a header.
const TOKEN_CHARS = /^[A-Za-z0-9\-._~+/]+=*$/;

function checkToken(token: string, where: string): void {
  if (!TOKEN_CHARS.test(token)) {
    throw new HttpConfigError(`${where}: a token may hold only letters, digits and - . _ ~ + / (then = padding)`);
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new HttpConfigError(
      `${where}: a token needs at least ${MIN_TOKEN_LENGTH} characters; make one with: openssl rand -hex 32`,
    );
  }
}

// Whether a scope is one the server supports is checked by createAuthenticator, which knows the tools.
function checkScopes(raw: readonly string[], where: string): string[] {
  const scopes = [...new Set(raw.map((s) => s.trim()).filter((s) => s !== ""))];
  if (scopes.length === 0) throw new HttpConfigError(`${where}: give the token's scopes, ${SCOPES.join(" and/or ")}`);
  const bad = scopes.find((s) => !SCOPE_TOKEN.test(s));
  if (bad !== undefined) {
    throw new HttpConfigError(
      `${where}: ${JSON.stringify(bad)} is not a scope; a scope is printable ASCII without spaces, " or \\, as in tools:read`,
    );
  }
  return scopes;
}

function checkRateLimit(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 1_000_000) {
    throw new HttpConfigError(
      `${where}: "rate_limit" is requests per minute, a whole number from 0 (unlimited) to 1000000 (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

function checkUnique(tokens: StaticToken[], source: string): StaticToken[] {
  const seen = new Set<string>();
  for (const t of tokens) {
    if (seen.has(t.token)) throw new HttpConfigError(`${source}: token ${t.id} appears twice; give each token once`);
    seen.add(t.token);
  }
  return tokens;
}

/**
 * TOOLSHED_TOKENS: entries separated by `;` or newlines, each `TOKEN:SCOPES` with the scopes
 * separated by spaces or commas, e.g. `tok-a…:tools:read tools:write;tok-b…:tools:read`.
 */
export function parseTokenList(text: string, source = "TOOLSHED_TOKENS"): StaticToken[] {
  const entries = text
    .split(/[;\n]/)
    .map((e) => e.trim())
    .filter((e) => e !== "");
  return checkUnique(
    entries.map((entry, index) => {
      const where = `${source} entry ${index + 1}`;
      const colon = entry.indexOf(":");
      if (colon <= 0) throw new HttpConfigError(`${where}: write TOKEN:SCOPES, as in mytoken…:tools:read tools:write`);
      const token = entry.slice(0, colon).trim();
      checkToken(token, where);
      return { id: `env#${index + 1}`, token, scopes: checkScopes(entry.slice(colon + 1).split(/[\s,]+/), where) };
    }),
    source,
  );
}

interface JsonToken {
  token?: unknown;
  scopes?: unknown;
  id?: unknown;
  rate_limit?: unknown;
}

/**
 * A tokens file: JSON (`[{"token", "scopes": [...], "id"?, "rate_limit"?}]` or `{"tokens": [...]}`), or lines
 * of `TOKEN SCOPE [SCOPE]` with `#` comments.
 */
export function parseTokensFile(text: string, path: string): StaticToken[] {
  const trimmed = text.trim();
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) return parseJsonTokens(trimmed, path);
  const tokens: StaticToken[] = [];
  text.split("\n").forEach((line, index) => {
    const content = line.replace(/#.*$/, "").trim();
    if (content === "") return;
    const where = `${path} line ${index + 1}`;
    const [token = "", ...scopes] = content.split(/\s+/);
    checkToken(token, where);
    tokens.push({ id: `file#${index + 1}`, token, scopes: checkScopes(scopes, where) });
  });
  return checkUnique(tokens, path);
}

function parseJsonTokens(text: string, path: string): StaticToken[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpConfigError(`${path} is not valid JSON; write [{"token": "…", "scopes": ["tools:read"]}]`);
  }
  const list = Array.isArray(value) ? value : (value as { tokens?: unknown }).tokens;
  if (!Array.isArray(list)) {
    throw new HttpConfigError(`${path}: expected a list of tokens, as in [{"token": "…", "scopes": ["tools:read"]}]`);
  }
  return checkUnique(
    list.map((item: JsonToken, index) => {
      const where = `${path} token ${index + 1}`;
      if (typeof item !== "object" || item === null || typeof item.token !== "string") {
        throw new HttpConfigError(`${where}: each entry needs "token" (a string) and "scopes"`);
      }
      checkToken(item.token, where);
      const scopes =
        typeof item.scopes === "string"
          ? item.scopes.split(/[\s,]+/)
          : Array.isArray(item.scopes) && item.scopes.every((s) => typeof s === "string")
            ? (item.scopes as string[])
            : [];
      const id = typeof item.id === "string" && item.id.trim() !== "" ? item.id.trim() : `file#${index + 1}`;
      const token: StaticToken = { id, token: item.token, scopes: checkScopes(scopes, where) };
      if (item.rate_limit !== undefined) token.rateLimit = checkRateLimit(item.rate_limit, where);
      return token;
    }),
    path,
  );
}
