import type { JsonAnswer } from "./exchange.js";
import { checkHostAndOrigin, type OriginPolicy } from "./guards.js";
import { HttpConfigError } from "./http-errors.js";
import type { HeaderReader } from "./wire.js";

/** Cross-origin access for browser clients: which page origins may call the endpoint. */
export interface CorsPolicy {
  /** Exact origins (`https://app.example.com`); lower-cased, no trailing slash. */
  origins: ReadonlySet<string>;
  /** How long a browser may cache a preflight, in seconds. */
  maxAgeSeconds: number;
}

export interface CorsOptions {
  /** Origins allowed to call from a browser, e.g. `https://app.example.com`. */
  origins: readonly string[];
  /** Preflight cache lifetime in seconds (default 600). */
  maxAgeSeconds?: number;
}

const METHODS = "GET, POST, DELETE, OPTIONS";
// What a browser client of MCP sends beyond the CORS-safelisted headers.
const ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "accept",
  "mcp-session-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "last-event-id",
  "x-request-id",
];
// Response headers a page's script may read; the rest are hidden by the browser.
const EXPOSED = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After, X-Request-Id";

/** Checks and normalises the allow list: each entry a scheme://host[:port] origin. */
export function corsPolicy(options: CorsOptions): CorsPolicy {
  const origins = new Set<string>();
  for (const entry of options.origins) {
    const origin = entry.trim().toLowerCase().replace(/\/+$/, "");
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin || !/^https?:$/.test(parsed.protocol)) {
      throw new HttpConfigError(
        `CORS origin "${entry}" is not an origin; write scheme://host[:port] with no path, as in https://app.example.com`,
      );
    }
    origins.add(origin);
  }
  const maxAge = options.maxAgeSeconds ?? 600;
  if (!Number.isInteger(maxAge) || maxAge < 0) {
    throw new HttpConfigError(`CORS maxAgeSeconds ${maxAge} must be a whole number of seconds, 0 or more`);
  }
  return { origins, maxAgeSeconds: maxAge };
}

function allowedOrigin(headers: HeaderReader, policy: CorsPolicy): string | undefined {
  const origin = headers.get("origin");
  return origin !== null && policy.origins.has(origin.toLowerCase()) ? origin : undefined;
}

/** The headers an answer to an allowed origin carries; none for other origins (the browser then blocks it). */
export function corsHeaders(headers: HeaderReader, policy: CorsPolicy): Record<string, string> {
  const origin = allowedOrigin(headers, policy);
  if (origin === undefined) return {};
  return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED, vary: "Origin" };
}

/** The answer to an OPTIONS preflight: 204 with what may be sent, or 403 for an origin not on the list. */
export function preflight(headers: HeaderReader, policy: CorsPolicy, origins: OriginPolicy, url: string): JsonAnswer {
  const origin = allowedOrigin(headers, policy);
  const requested = headers.get("access-control-request-method");
  const foreign = checkHostAndOrigin(headers, origins, url);
  if (origin === undefined || requested === null || foreign) {
    const why =
      origin === undefined
        ? `the origin ${headers.get("origin") ?? "(none)"} is not allowed to call this server from a browser`
        : requested === null
          ? "a preflight names its method in Access-Control-Request-Method"
          : "the Host header is not allowed";
    return { status: 403, json: JSON.stringify({ error: `Forbidden: ${why}` }), headers: { vary: "Origin" } };
  }
  const asked = (headers.get("access-control-request-headers") ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "" && (ALLOWED_HEADERS.includes(h) || h.startsWith("mcp-param-")));
  return {
    status: 204,
    headers: {
      "access-control-allow-methods": METHODS,
      "access-control-allow-headers": [...new Set([...ALLOWED_HEADERS, ...asked])].join(", "),
      "access-control-max-age": String(policy.maxAgeSeconds),
    },
  };
}
