import { createHash, timingSafeEqual } from "node:crypto";
import type { AuthInfo } from "@toolshed/schema";
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from "jose";
import { SCOPES, type Scope, type StaticToken } from "./tokens.js";

export interface JwtOptions {
  /** Where the authorization server publishes its signing keys (JWKS). */
  jwksUrl: string;
  /** Expected `iss` claim. */
  issuer: string;
  /** Expected `aud` claim: the id or URL tokens for this server are issued for. */
  audience: string | string[];
}

export interface AuthOptions {
  tokens?: readonly StaticToken[];
  jwt?: JwtOptions;
}

export type AuthOutcome =
  | {
      ok: true;
      authInfo: AuthInfo;
      /** What logs name the credential by (a token's id, `jwt:<sub>`); not unique. */
      label: string;
      /**
       * Who the caller is, as a key no other credential can have: `static:<id>` (`:<n>` for the
       * n-th token sharing an id) or `jwt:<iss>:<sub>`, parts URI-encoded. It owns sessions,
       * rate-limit buckets, and binds 2026 requestState (as `authInfo.extra.principal`).
       */
      owner: string;
      /** This token's own per-minute limit. */
      rateLimit?: number;
    }
  | {
      ok: false;
      status: 401 | 403 | 503;
      /** RFC 6750 error code for WWW-Authenticate; absent when no token was sent. */
      error?: "invalid_token" | "insufficient_scope";
      description: string;
    };

export interface Authenticator {
  authenticate(authorization: string | undefined | null): Promise<AuthOutcome>;
}

const sha256 = (value: string) => createHash("sha256").update(value).digest();

/** Bearer tokens from a static list (compared in constant time) and/or JWTs checked against a JWKS. */
export function createAuthenticator(options: AuthOptions): Authenticator | undefined {
  // An id is a label an operator chose: a read and a write token may share one, and each is still its own caller.
  const sharing = new Map<string, number>();
  const tokens = (options.tokens ?? []).map((t) => {
    const n = (sharing.get(t.id) ?? 0) + 1;
    sharing.set(t.id, n);
    const owner = `static:${encodeURIComponent(t.id)}${n > 1 ? `:${n}` : ""}`;
    return { ...t, digest: sha256(t.token), owner };
  });
  const jwt = options.jwt;
  if (tokens.length === 0 && !jwt) return undefined;
  const keys = jwt
    ? createRemoteJWKSet(new URL(jwt.jwksUrl), { timeoutDuration: 5_000, cooldownDuration: 30_000 })
    : undefined;

  // Digests have one length, so timingSafeEqual applies; every entry is compared, hit or miss.
  const matchStatic = (token: string) => {
    const digest = sha256(token);
    let found: (typeof tokens)[number] | undefined;
    for (const t of tokens) if (timingSafeEqual(digest, t.digest) && !found) found = t;
    return found;
  };

  return {
    async authenticate(authorization) {
      if (!authorization) {
        return { ok: false, status: 401, description: "Unauthorized: send the header Authorization: Bearer <token>" };
      }
      const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
      if (!match?.[1]) {
        return {
          ok: false,
          status: 401,
          error: "invalid_token",
          description: "Unauthorized: use the Bearer scheme, Authorization: Bearer <token>",
        };
      }
      const token = match[1];
      const known = matchStatic(token);
      if (known) {
        const outcome = granted(token, known.id, known.scopes, known.id, known.owner);
        if (outcome.ok && known.rateLimit !== undefined) outcome.rateLimit = known.rateLimit;
        return outcome;
      }
      if (!jwt || !keys || token.split(".").length !== 3) {
        return { ok: false, status: 401, error: "invalid_token", description: "Unauthorized: the token is not valid" };
      }
      try {
        const { payload } = await jwtVerify(token, keys, { issuer: jwt.issuer, audience: jwt.audience });
        // Users are told apart by issuer and subject; a client id is shared by all users of one app.
        const subject = stringClaim(payload, "sub");
        if (subject === undefined) {
          return {
            ok: false,
            status: 401,
            error: "invalid_token",
            description:
              "Unauthorized: the token names no user (no sub claim); this server needs one to keep users apart, ask the authorization server for a token with sub",
          };
        }
        const clientId = stringClaim(payload, "client_id") ?? stringClaim(payload, "azp") ?? subject;
        const issuer = stringClaim(payload, "iss") ?? jwt.issuer;
        const owner = `jwt:${encodeURIComponent(issuer)}:${encodeURIComponent(subject)}`;
        return granted(token, clientId, scopesOf(payload), `jwt:${subject}`, owner, payload.exp);
      } catch (error) {
        return jwtFailure(error, jwt);
      }
    },
  };
}

function granted(
  token: string,
  clientId: string,
  scopes: readonly string[],
  label: string,
  owner: string,
  expiresAt?: number,
): AuthOutcome {
  const known = scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
  if (known.length === 0) {
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
  const invalid = (why: string): AuthOutcome => ({
    ok: false,
    status: 401,
    error: "invalid_token",
    description: `Unauthorized: ${why}`,
  });
  if (error instanceof errors.JWTExpired) return invalid("the token has expired; get a new one");
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return invalid("the token was issued for another audience, not this server");
    if (error.claim === "iss") return invalid(`the token was not issued by ${jwt.issuer}`);
    if (error.claim === "nbf") return invalid("the token is not valid yet");
    return invalid(`the token's ${error.claim} claim is not valid`);
  }
  const keySetDown =
    error instanceof errors.JWKSTimeout ||
    !(error instanceof errors.JOSEError) ||
    /JSON Web Key Set HTTP response/.test(error.message);
  if (keySetDown) {
    return {
      ok: false,
      status: 503,
      description: "Service Unavailable: the server could not load the keys to check the token; retry later",
    };
  }
  return invalid("the token is not valid");
}
