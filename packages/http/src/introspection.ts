import { createHash } from "node:crypto";
import { fetchFailure, readCapped } from "./capped-fetch.js";
import { HttpConfigError } from "./http-errors.js";

/** Opaque access tokens checked at the authorization server's introspection endpoint (RFC 7662). */
export interface IntrospectionOptions {
  /** The authorization server's introspection endpoint. */
  url: string;
  /** This server's client credentials at the authorization server (HTTP Basic). */
  clientId: string;
  clientSecret: string;
  /** Expected issuer (`iss`), when the authorization server names one. */
  issuer?: string;
  /** Expected audience (`aud`): the id or URL tokens for this server are issued for. */
  audience?: string | string[];
  /**
   * How long an answer for an active token is reused, in ms, never past the token's `exp`
   * (default 60 000; 0 asks for every request). A revoked token is accepted at most this long.
   */
  cacheTtlMs?: number;
  /** Answers kept at most (default 10 000); the least recently used go first. */
  cacheMaxEntries?: number;
  /** How long to wait for the authorization server, in ms (default 5 000). */
  timeoutMs?: number;
  /** Seconds of clock difference with the authorization server allowed on `exp` and `nbf` (default 5, at most 300). */
  clockToleranceSec?: number;
}

/** What the authorization server said about a token, or why it could not be asked. */
export type IntrospectionAnswer =
  | { kind: "active"; claims: Readonly<Record<string, unknown>> }
  | { kind: "inactive" }
  /** `reason` is for the operator's log: it never reaches the client. */
  | { kind: "unavailable"; reason: string }
  /** Not known yet, and the endpoint was not to be asked (see Introspector.introspect). */
  | { kind: "deferred" };

export interface Introspector {
  /**
   * The endpoint's answer about `token`, cached. `mayAsk` is asked before the endpoint is (a token
   * with no cached or pending answer); false makes the answer `deferred` without asking.
   */
  introspect(token: string, mayAsk?: () => boolean | Promise<boolean>): Promise<IntrospectionAnswer>;
}

export const DEFAULT_INTROSPECTION_CACHE_TTL_MS = 60_000;
export const DEFAULT_INTROSPECTION_CACHE_ENTRIES = 10_000;
export const DEFAULT_INTROSPECTION_TIMEOUT_MS = 5_000;
// Junk and revoked tokens are remembered briefly too, so repeating one does not reach the server.
const INACTIVE_TTL_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;
/** Seconds of clock difference with the authorization server allowed on `exp` and `nbf`, by default. */
export const CLOCK_TOLERANCE_SECONDS = 5;
const MAX_CLOCK_TOLERANCE_SECONDS = 300;

/** Refuses a clock tolerance that is not a number of seconds from 0 to 300. */
export function checkClockTolerance(owner: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0 && value <= MAX_CLOCK_TOLERANCE_SECONDS)) {
    throw new HttpConfigError(
      `${owner} clockToleranceSec must be a number from 0 to ${MAX_CLOCK_TOLERANCE_SECONDS} (got ${value})`,
    );
  }
}

interface Entry {
  answer: IntrospectionAnswer;
  until: number;
}

/**
 * Asks the introspection endpoint about tokens, with a bounded cache keyed by the token's SHA-256
 * (never the token), one request at a time per token, a timeout and a size cap. Failures to ask
 * are never cached. `now` is the clock in ms (tests move it).
 */
export function createIntrospector(options: IntrospectionOptions, now: () => number = Date.now): Introspector {
  const url = checkOptions(options);
  const ttl = options.cacheTtlMs ?? DEFAULT_INTROSPECTION_CACHE_TTL_MS;
  const maxEntries = options.cacheMaxEntries ?? DEFAULT_INTROSPECTION_CACHE_ENTRIES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_INTROSPECTION_TIMEOUT_MS;
  const authorization = `Basic ${Buffer.from(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`).toString("base64")}`;
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const cache = new Map<string, Entry>();
  const pending = new Map<string, Promise<IntrospectionAnswer>>();

  const remember = (key: string, answer: IntrospectionAnswer) => {
    const at = now();
    let until = at;
    if (answer.kind === "inactive") until = at + Math.min(ttl, INACTIVE_TTL_MS);
    if (answer.kind === "active") {
      until = at + ttl;
      const exp = answer.claims.exp;
      if (typeof exp === "number") until = Math.min(until, exp * 1000);
    }
    if (until <= at) return;
    cache.delete(key);
    cache.set(key, { answer, until });
    while (cache.size > maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
  };

  const ask = async (token: string): Promise<IntrospectionAnswer> => {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: {
          authorization,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
        // A redirect would resend the credentials and the token somewhere else.
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      return unavailable(fetchFailure(error, "the introspection endpoint", url, timeoutMs));
    }
    try {
      return await readAnswer(response, url);
    } catch (error) {
      return unavailable(fetchFailure(error, "the introspection endpoint", url, timeoutMs));
    }
  };

  return {
    async introspect(token, mayAsk) {
      const key = createHash("sha256").update(token).digest("base64url");
      const hit = cache.get(key);
      if (hit) {
        cache.delete(key);
        if (hit.until > now()) {
          cache.set(key, hit);
          return hit.answer;
        }
      }
      if (mayAsk && !pending.has(key) && !(await mayAsk())) return DEFERRED;
      const running = pending.get(key);
      if (running) return running;
      const asked = ask(token).then((answer) => {
        pending.delete(key);
        if (answer.kind !== "unavailable") remember(key, answer);
        return answer;
      });
      pending.set(key, asked);
      return asked;
    },
  };
}

const unavailable = (reason: string): IntrospectionAnswer => ({ kind: "unavailable", reason });
const DEFERRED: IntrospectionAnswer = Object.freeze({ kind: "deferred" as const });

async function readAnswer(response: Response, url: string): Promise<IntrospectionAnswer> {
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    return unavailable(
      `the authorization server refused this server's client credentials (HTTP ${response.status} from ${url}); ` +
        "check the introspection client id and secret: every token is answered 503 until they are right",
    );
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    const location = response.headers.get("location");
    return unavailable(
      `the introspection endpoint ${url} redirects (HTTP ${response.status}${location ? ` to ${location}` : ""}); configure the URL it redirects to`,
    );
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return unavailable(`the introspection endpoint ${url} answered HTTP ${response.status}`);
  }
  const text = await readCapped(response, MAX_ANSWER_BYTES);
  if (text === undefined) {
    return unavailable(`the introspection answer from ${url} is larger than ${MAX_ANSWER_BYTES / 1024} KiB`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return unavailable(`the introspection endpoint ${url} did not answer with a JSON object (RFC 7662)`);
  }
  const claims = value as Record<string, unknown>;
  if (claims.active === false) return { kind: "inactive" };
  if (claims.active !== true) {
    return unavailable(`the introspection answer from ${url} has no boolean "active" (RFC 7662)`);
  }
  return { kind: "active", claims };
}

// RFC 6749 section 2.3.1: client id and secret are form-encoded before they are joined for Basic.
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

function checkOptions(options: IntrospectionOptions): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(options.url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
    throw new HttpConfigError(
      `introspection url "${options.url}" is not an http(s) URL, such as https://auth.example.com/oauth2/introspect`,
    );
  }
  if (options.clientId === "" || options.clientSecret === "") {
    throw new HttpConfigError(
      "introspection needs this server's client id and secret at the authorization server (clientId, clientSecret)",
    );
  }
  const whole = (name: string, value: number | undefined, min: number) => {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
      throw new HttpConfigError(`introspection ${name} must be a whole number, ${min} or more (got ${value})`);
    }
  };
  whole("cacheTtlMs", options.cacheTtlMs, 0);
  whole("cacheMaxEntries", options.cacheMaxEntries, 1);
  whole("timeoutMs", options.timeoutMs, 1);
  checkClockTolerance("introspection", options.clockToleranceSec);
  return parsed.href;
}

export type CheckedClaims =
  | { ok: true; subject: string; issuer: string; clientId: string; scopes: string[]; expiresAt?: number }
  | { ok: false; why: string };

/**
 * The checks RFC 7662 leaves to the resource server: time window, issuer, audience, and a subject
 * to tell callers apart. `nowSeconds` is the current time in seconds.
 */
export function checkClaims(
  claims: Readonly<Record<string, unknown>>,
  options: IntrospectionOptions,
  nowSeconds: number,
): CheckedClaims {
  const { exp, nbf } = claims;
  if (exp !== undefined && typeof exp !== "number") return { ok: false, why: "the token's exp is not a number" };
  if (nbf !== undefined && typeof nbf !== "number") return { ok: false, why: "the token's nbf is not a number" };
  const tolerance = options.clockToleranceSec ?? CLOCK_TOLERANCE_SECONDS;
  if (exp !== undefined && exp + tolerance <= nowSeconds) {
    return { ok: false, why: "the token has expired; get a new one" };
  }
  if (nbf !== undefined && nbf - tolerance > nowSeconds) {
    return { ok: false, why: "the token is not valid yet" };
  }
  const iss = text(claims.iss);
  if (options.issuer !== undefined && iss !== options.issuer) {
    return { ok: false, why: `the token was not issued by ${options.issuer}` };
  }
  if (options.audience !== undefined) {
    const expected = typeof options.audience === "string" ? [options.audience] : options.audience;
    const aud = claims.aud;
    const given = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud.filter((a) => typeof a === "string") : [];
    if (!given.some((a) => expected.includes(a))) {
      return { ok: false, why: "the token was issued for another audience, not this server" };
    }
  }
  // Users are told apart by subject: a client id is shared by every user of one app.
  const subject = text(claims.sub);
  if (subject === undefined) {
    return {
      ok: false,
      why: "the token names no user (no sub); this server needs one to keep callers apart, ask the authorization server to include sub in introspection answers",
    };
  }
  const scope = typeof claims.scope === "string" ? claims.scope.split(" ").filter((s) => s !== "") : [];
  const checked: CheckedClaims = {
    ok: true,
    subject,
    issuer: iss ?? options.url,
    clientId: text(claims.client_id) ?? subject,
    scopes: scope,
  };
  if (typeof exp === "number") checked.expiresAt = exp;
  return checked;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
