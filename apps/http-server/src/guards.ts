import { HttpConfigError, HttpErrorCode, jsonRpcErrorResponse } from "./http-errors.js";

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

function hostMatches(header: string, allowed: readonly string[]): boolean {
  const host = header.toLowerCase();
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  // An entry with a port must match exactly; one without matches that name on any port.
  return allowed.some((entry) => entry === host || (!/(^\[.*\]:\d+$)|(^[^[\]]*:\d+$)/.test(entry) && entry === name));
}

function originMatches(origin: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => {
    if (!entry.endsWith(":*")) return entry === origin;
    const base = entry.slice(0, -2);
    return origin === base || (origin.startsWith(`${base}:`) && /^\d+$/.test(origin.slice(base.length + 1)));
  });
}

/** 403 with a JSON-RPC error body for a foreign Host or Origin, as the SDK's transport answers. */
export function checkHostAndOrigin(request: Request, policy: OriginPolicy): Response | undefined {
  const headers = request.headers;
  if (policy.allowedHosts) {
    // A Request built in code (app.fetch without a server) has its host only in the URL.
    const host = headers.get("host") ?? hostOf(request.url);
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

/** Auth may be off only on loopback, where no other machine can reach the server. */
export function checkAuthConfigured(host: string, hasAuth: boolean): void {
  if (!hasAuth && !isLoopbackHost(host)) {
    throw new HttpConfigError(
      `refusing to serve ${host} without authentication; add --tokens-file PATH (or TOOLSHED_TOKENS) or --jwks-url URL, or bind to 127.0.0.1`,
    );
  }
}
