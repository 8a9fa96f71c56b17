import { createHash, timingSafeEqual } from "node:crypto";
import { closestMatches } from "@toolshed/errors";
import type { AuthInfo, Logger } from "@toolshed/schema";
import { errors, type JWTPayload, jwtVerify } from "jose";
import { HttpConfigError } from "./http-errors.js";
import {
  CLOCK_TOLERANCE_SECONDS,
  checkClaims,
  checkClockTolerance,
  createIntrospector,
  type IntrospectionOptions,
} from "./introspection.js";
import { createKeySet, type JwksOptions, KeySetUnavailable } from "./jwks.js";
import { SCOPE_TOKEN, SCOPES, type StaticToken } from "./tokens.js";

export interface JwtOptions {
  /** Where the authorization server publishes its signing keys (JWKS). */
  jwksUrl: string;
  /** Expected `iss` claim. */
  issuer: string;
  /** Expected `aud` claim: the id or URL tokens for this server are issued for. */
  audience: string | string[];
  /** Limits on fetching the key set, and how long its last good keys outlive a failing authorization server. */
  jwks?: JwksOptions;
  /** Seconds of clock difference with the authorization server allowed on `exp` and `nbf` (default 5, at most 300). */
  clockToleranceSec?: number;
}

export interface AuthOptions {
  tokens?: readonly StaticToken[];
  jwt?: JwtOptions;
  /**
   * Opaque tokens checked at the authorization server (RFC 7662): every token that is not a static
   * one, or, with `jwt` too, every token that is not shaped like a JWT.
   */
  introspection?: IntrospectionOptions;
  /**
   * The scopes this server knows (default SCOPES): `tools:read`, `tools:write` (always supported)
   * and the scopes its tools require (`notes:admin`). A token keeps only these; a static token
   * naming another is a configuration error.
   */
  scopesSupported?: readonly string[];
  /** Where failures to check a token at the authorization server are reported (they never reach the client). */
  logger?: Logger;
}

export type AuthOutcome =
  | {
      ok: true;
      authInfo: AuthInfo;
      /** What logs name the credential by (a token's id, `jwt:<sub>`, `introspect:<sub>`); not unique. */
      label: string;
      /**
       * Who the caller is, as a key no other credential can have: `static:<id>` (`:<n>` for the
       * n-th token sharing an id), `jwt:<iss>:<sub>` or `introspect:<iss or url>:<sub>`, parts URI-encoded. It owns sessions,
       * rate-limit buckets, and binds 2026 requestState (as `authInfo.extra.principal`).
       */
      owner: string;
      /** This token's own per-minute limit. */
      rateLimit?: number;
    }
  | {
      ok: false;
      /** 429: a token that needed the introspection endpoint, which `remote: false` forbade. */
      status: 401 | 403 | 429 | 503;
      /** RFC 6750 error code for WWW-Authenticate; absent when no token was sent. */
      error?: "invalid_token" | "insufficient_scope";
      description: string;
      /** With 503: when to try again (Retry-After), in seconds. */
      retryAfterSeconds?: number;
    };

export interface AuthenticateOptions {
  /**
   * Asked before the introspection endpoint is asked about a token it has no cached answer for;
   * false refuses the token with 429 instead, so a client sending junk tokens cannot make this
   * server flood the authorization server. Static tokens, JWTs and cached answers do not ask.
   */
  remote?: () => boolean | Promise<boolean>;
}

export interface Authenticator {
  authenticate(authorization: string | undefined | null, options?: AuthenticateOptions): Promise<AuthOutcome>;
}

const sha256 = (value: string) => createHash("sha256").update(value).digest();

const UNAVAILABLE = "Service Unavailable: the server could not check the token; retry later";
// One log line per distinct failure this often, so an authorization server that is down does not flood the log.
const FAILURE_LOG_INTERVAL_MS = 30_000;

/**
 * Bearer tokens from a static list (compared in constant time), JWTs checked against a JWKS and/or
 * opaque tokens checked by introspection. Throws HttpConfigError for a configuration that cannot work.
 */
export function createAuthenticator(options: AuthOptions): Authenticator | undefined {
  const supported = supportedScopes(options.scopesSupported);
  // An id is a label an operator chose: a read and a write token may share one, and each is still its own caller.
  const sharing = new Map<string, number>();
  const tokens = (options.tokens ?? []).map((t) => {
    checkStaticScopes(t, supported);
    const n = (sharing.get(t.id) ?? 0) + 1;
    sharing.set(t.id, n);
    const owner = `static:${encodeURIComponent(t.id)}${n > 1 ? `:${n}` : ""}`;
    return { ...t, digest: sha256(t.token), owner };
  });
  const { jwt, introspection } = options;
  if (tokens.length === 0 && !jwt && !introspection) return undefined;
  const keys = jwt ? createKeySet(checkJwtOptions(jwt), jwt.jwks, options.logger) : undefined;
  const clockTolerance = jwt?.clockToleranceSec ?? CLOCK_TOLERANCE_SECONDS;
  const introspector = introspection ? createIntrospector(introspection) : undefined;
  const logged = new Map<string, number>();
  const reportFailure = (reason: string) => {
    const at = Date.now();
    if ((logged.get(reason) ?? 0) > at - FAILURE_LOG_INTERVAL_MS) return;
    if (logged.size > 100) logged.clear();
    logged.set(reason, at);
    options.logger?.warn({ introspectionUrl: introspection?.url }, `token introspection failed: ${reason}`);
  };

  // Digests have one length, so timingSafeEqual applies; every entry is compared, hit or miss.
  const matchStatic = (token: string) => {
    const digest = sha256(token);
    let found: (typeof tokens)[number] | undefined;
    for (const t of tokens) if (timingSafeEqual(digest, t.digest) && !found) found = t;
    return found;
  };

  const introspect = async (token: string, remote: AuthenticateOptions["remote"]): Promise<AuthOutcome> => {
    if (!introspector || !introspection) return invalid("the token is not valid");
    const answer = await introspector.introspect(token, remote);
    if (answer.kind === "deferred") return { ok: false, status: 429, description: "Too Many Requests" };
    if (answer.kind === "unavailable") {
      reportFailure(answer.reason);
      return { ok: false, status: 503, description: UNAVAILABLE };
    }
    if (answer.kind === "inactive")
      return invalid("the token is not active (expired, revoked or unknown); get a new one");
    const checked = checkClaims(answer.claims, introspection, Math.floor(Date.now() / 1000));
    if (!checked.ok) return invalid(checked.why);
    const owner = `introspect:${encodeURIComponent(checked.issuer)}:${encodeURIComponent(checked.subject)}`;
    const label = `introspect:${checked.subject}`;
    return granted(token, checked.clientId, checked.scopes, label, owner, supported, checked.expiresAt);
  };

  return {
    async authenticate(authorization, authOptions = {}) {
      if (!authorization) {
        return { ok: false, status: 401, description: "Unauthorized: send the header Authorization: Bearer <token>" };
      }
      const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
      if (!match?.[1]) return invalid("use the Bearer scheme, Authorization: Bearer <token>");
      const token = match[1];
      const known = matchStatic(token);
      if (known) {
        const outcome = granted(token, known.id, known.scopes, known.id, known.owner, supported);
        if (outcome.ok && known.rateLimit !== undefined) outcome.rateLimit = known.rateLimit;
        return outcome;
      }
      const jwtShaped = token.split(".").length === 3;
      if (!jwt || !keys || !jwtShaped) return introspect(token, authOptions.remote);
      try {
        const { payload } = await jwtVerify(token, keys.getKey, {
          issuer: jwt.issuer,
          audience: jwt.audience,
          clockTolerance,
        });
        // Users are told apart by issuer and subject; a client id is shared by all users of one app.
        const subject = stringClaim(payload, "sub");
        if (subject === undefined) {
          return invalid(
            "the token names no user (no sub claim); this server needs one to keep users apart, ask the authorization server for a token with sub",
          );
        }
        const clientId = stringClaim(payload, "client_id") ?? stringClaim(payload, "azp") ?? subject;
        const issuer = stringClaim(payload, "iss") ?? jwt.issuer;
        const owner = `jwt:${encodeURIComponent(issuer)}:${encodeURIComponent(subject)}`;
        return granted(token, clientId, scopesOf(payload), `jwt:${subject}`, owner, supported, payload.exp);
      } catch (error) {
        return jwtFailure(error, jwt);
      }
    },
  };
}

function invalid(why: string): AuthOutcome {
  return { ok: false, status: 401, error: "invalid_token", description: `Unauthorized: ${why}` };
}

/** SCOPES plus the given ones, each checked to be an RFC 6749 scope. */
function supportedScopes(given: readonly string[] | undefined): ReadonlySet<string> {
  const scopes = new Set<string>([...SCOPES, ...(given ?? [])]);
  for (const scope of scopes) {
    if (!SCOPE_TOKEN.test(scope)) {
      throw new HttpConfigError(
        `scopesSupported: ${JSON.stringify(scope)} is not a scope; a scope is printable ASCII without spaces, " or \\, as in notes:admin`,
      );
    }
  }
  return scopes;
}

// A static token's scopes were written by the operator: a typo would otherwise fail only at call time.
function checkStaticScopes(token: StaticToken, supported: ReadonlySet<string>): void {
  const list = [...supported].join(", ");
  for (const scope of token.scopes) {
    if (supported.has(scope)) continue;
    const [guess] = closestMatches(scope, supported, 1, Math.max(2, Math.floor(scope.length / 3)));
    throw new HttpConfigError(
      `token ${token.id} has the scope "${scope}", which this server does not support; ${guess === undefined ? "" : `did you mean "${guess}"? `}the supported scopes are ${list}`,
    );
  }
  if (!token.scopes.some((s) => (SCOPES as readonly string[]).includes(s))) {
    throw new HttpConfigError(
      `token ${token.id} has neither tools:read nor tools:write, so every request with it would be refused; add one of them`,
    );
  }
}

function granted(
  token: string,
  clientId: string,
  scopes: readonly string[],
  label: string,
  owner: string,
  supported: ReadonlySet<string>,
  expiresAt?: number,
): AuthOutcome {
  // Scopes this server does not know mean nothing here; a token needs tools:read or tools:write to do anything.
  const known = [...new Set(scopes.filter((s) => supported.has(s)))];
  if (!known.some((s) => (SCOPES as readonly string[]).includes(s))) {
    return {
      ok: false,
      status: 403,
      error: "insufficient_scope",
      description: `Forbidden: the token needs the scope ${SCOPES.join(" or ")}`,
    };
  }
  const authInfo: AuthInfo = { token, clientId, scopes: known, extra: { principal: owner } };
  if (expiresAt !== undefined) authInfo.expiresAt = expiresAt;
  return { ok: true, authInfo, label, owner };
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** OAuth puts scopes in `scope` (space-separated); some servers use an `scp` array instead. */
function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === "string") return payload.scope.split(" ").filter((s) => s !== "");
  const scp = payload.scp;
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === "string");
  if (typeof scp === "string") return scp.split(" ").filter((s) => s !== "");
  return [];
}

function jwtFailure(error: unknown, jwt: JwtOptions): AuthOutcome {
  if (error instanceof errors.JWTExpired) return invalid("the token has expired; get a new one");
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return invalid("the token was issued for another audience, not this server");
    if (error.claim === "iss") return invalid(`the token was not issued by ${jwt.issuer}`);
    if (error.claim === "nbf") return invalid("the token is not valid yet");
    return invalid(`the token's ${error.claim} claim is not valid`);
  }
  if (error instanceof KeySetUnavailable) {
    return {
      ok: false,
      status: 503,
      description: error.newKey ? NEW_KEY : KEYS_DOWN,
      retryAfterSeconds: error.retryAfterSeconds,
    };
  }
  if (!(error instanceof errors.JOSEError)) return { ok: false, status: 503, description: KEYS_DOWN };
  return invalid("the token is not valid");
}

const KEYS_DOWN = "Service Unavailable: the server could not load the keys to check the token; retry later";
const NEW_KEY = "Service Unavailable: the token is signed with a key the server has not loaded yet; retry later";

/** The key set's URL, once the options are known to work. */
function checkJwtOptions(jwt: JwtOptions): string {
  let url: URL | undefined;
  try {
    url = new URL(jwt.jwksUrl);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new HttpConfigError(
      `jwt jwksUrl "${jwt.jwksUrl}" is not an http(s) URL, such as https://auth.example.com/jwks.json`,
    );
  }
  checkClockTolerance("jwt", jwt.clockToleranceSec);
  return url.href;
}
