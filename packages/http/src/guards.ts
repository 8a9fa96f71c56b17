import { HttpConfigError, HttpErrorCode, jsonRpcErrorResponse } from "./http-errors.js";
import type { HeaderReader } from "./wire.js";

/** Which Host and Origin headers a request may carry; `undefined` means any (no check). */
export interface OriginPolicy {
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h === "::1" || h === "[::1]" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Secure defaults (DNS rebinding protection): on loopback only localhost, 127.0.0.1 and [::1] on
 * the bound port, and browser pages from those origins; elsewhere any Host (a load balancer picks
 * it) but no browser Origin unless allowed. `*` in a list turns that check off.
 */
export function resolveOriginPolicy(options: {
  host: string;
  /** The bound port; without it, loopback names match on any port. */
  port?: number;
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
}): OriginPolicy {
  const star = (list: readonly string[] | undefined) => list?.includes("*") ?? false;
  let hosts: readonly string[] | undefined;
  if (options.allowedHosts && options.allowedHosts.length > 0)
    hosts = star(options.allowedHosts) ? undefined : options.allowedHosts;
  else if (isLoopbackHost(options.host)) {
    hosts = LOOPBACK_NAMES.map((h) => (options.port === undefined ? h : `${h}:${options.port}`));
  }
  let origins: readonly string[] | undefined;
  if (options.allowedOrigins && options.allowedOrigins.length > 0) {
    origins = star(options.allowedOrigins) ? undefined : options.allowedOrigins;
  } else {
    // A host without a port allows its pages on any port (`http://localhost:*`).
    const withPort = (h: string) => (/:\d+$/.test(h) ? h : `${h}:*`);
    origins = (hosts ?? []).flatMap((h) => [`http://${withPort(h)}`, `https://${withPort(h)}`]);
  }
  return {
    ...(hosts === undefined ? {} : { allowedHosts: hosts.map((h) => h.toLowerCase()) }),
    ...(origins === undefined ? {} : { allowedOrigins: origins.map((o) => o.toLowerCase().replace(/\/+$/, "")) }),
  };
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

// Per allow list: every entry (matched exactly) and the entries without a port (matching that
// name on any port). Built once per list, not per request.
const hostSets = new WeakMap<readonly string[], { exact: Set<string>; anyPort: Set<string> }>();

function hostMatches(header: string, allowed: readonly string[]): boolean {
  let sets = hostSets.get(allowed);
  if (!sets) {
    const withPort = /(^\[.*\]:\d+$)|(^[^[\]]*:\d+$)/;
    sets = { exact: new Set(allowed), anyPort: new Set(allowed.filter((entry) => !withPort.test(entry))) };
    hostSets.set(allowed, sets);
  }
  const host = header.toLowerCase();
  if (sets.exact.has(host)) return true;
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  return name !== undefined && sets.anyPort.has(name);
}

function originMatches(origin: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => {
    if (!entry.endsWith(":*")) return entry === origin;
    const base = entry.slice(0, -2);
    return origin === base || (origin.startsWith(`${base}:`) && /^\d+$/.test(origin.slice(base.length + 1)));
  });
}

/** 403 with a JSON-RPC error body for a foreign Host or Origin, as the SDK's transport answers. */
export function checkHostAndOrigin(headers: HeaderReader, policy: OriginPolicy, url?: string): Response | undefined {
  // An absolute-form request target (`POST http://other.example/mcp`) names its own authority; it
  // must be the Host that was checked, or URLs built from the request would name the other one.
  const hostHeader = headers.get("host");
  const target = url === undefined ? null : hostOf(url);
  // Both as a URL has them, so an explicit default port (Host: name:80) still matches.
  const expected =
    target === null || hostHeader === null ? null : hostOf(`${new URL(url as string).protocol}//${hostHeader}`);
  if (target !== null && hostHeader !== null && target !== expected) {
    return jsonRpcErrorResponse(
      400,
      HttpErrorCode.Transport,
      "Bad Request: the request target names another host than the Host header; send the path only (POST /mcp)",
    );
  }
  if (policy.allowedHosts) {
    // A Request built in code (app.fetch without a server) has its host only in the URL.
    const host = headers.get("host") ?? (url === undefined ? null : hostOf(url));
    if (!host || !hostMatches(host, policy.allowedHosts)) {
      return jsonRpcErrorResponse(403, HttpErrorCode.Transport, `Invalid Host header: ${host}`);
    }
  }
  if (policy.allowedOrigins) {
    const origin = headers.get("origin");
    if (origin && !originMatches(origin.toLowerCase(), policy.allowedOrigins)) {
      return jsonRpcErrorResponse(403, HttpErrorCode.Transport, `Invalid Origin header: ${origin}`);
    }
  }
  return undefined;
}

/**
 * Auth may be off only on loopback, where no other machine can reach the server. `how` says how
 * to turn auth on, in the caller's words (options for the library, flags for the bin).
 */
export function checkAuthConfigured(
  host: string,
  hasAuth: boolean,
  how = "pass tokens, jwt or introspection to createHttpApp",
): void {
  if (!hasAuth && !isLoopbackHost(host)) {
    throw new HttpConfigError(`refusing to serve ${host} without authentication; ${how}, or bind to 127.0.0.1`);
  }
}

// Names a token could hide under in a URL; URLs end up in logs, proxies and browser history.
const QUERY_TOKEN_NAMES = new Set(["access_token", "token", "bearer", "api_key"]);

/** The first query parameter named like a token, in any case, as it was sent; undefined when none is. */
export function tokenInQuery(query: string): string | undefined {
  if (query === "") return undefined;
  for (const name of new URLSearchParams(query).keys()) {
    if (QUERY_TOKEN_NAMES.has(name.toLowerCase())) return name;
  }
  return undefined;
}
