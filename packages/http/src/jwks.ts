import type { Logger } from "@toolshed/schema";
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { fetchFailure, readCapped } from "./capped-fetch.js";
import { HttpConfigError } from "./http-errors.js";

/** Limits on fetching the authorization server's key set (JWKS). */
export interface JwksOptions {
  /**
   * How long after the last good fetch its keys are still used while the key set cannot be fetched,
   * in ms (default 24 h). Past it every JWT is answered 503 until the key set loads again.
   */
  maxStaleMs?: number;
  /** Shortest time between two fetches, in ms (default 30 000), whoever asks. */
  cooldownMs?: number;
  /** How long to wait for the key set, in ms (default 5 000). */
  timeoutMs?: number;
  /** Largest key-set response, in bytes (default 256 KiB). */
  maxBytes?: number;
}

export const DEFAULT_JWKS_MAX_STALE_MS = 24 * 3_600_000;
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;
export const DEFAULT_JWKS_TIMEOUT_MS = 5_000;
export const DEFAULT_JWKS_MAX_BYTES = 256 * 1024;
/** Keys younger than this are used without asking again; older ones are refreshed in the background. */
export const JWKS_REFRESH_MS = 600_000;
// Failed fetches wait the cooldown (at least 1 s), 2×, 4×… up to this (or the cooldown, when longer).
const MAX_BACKOFF_MS = 300_000;

/** The key set cannot be used now; `retryAfterSeconds` is when the next fetch may be tried. */
export class KeySetUnavailable extends Error {
  constructor(
    readonly retryAfterSeconds: number,
    /** True when the keys are there but not the token's: a key published since the last fetch. */
    readonly newKey: boolean,
  ) {
    super(newKey ? "the token's key is not in the loaded key set" : "the key set could not be loaded");
    this.name = "KeySetUnavailable";
  }
}

export interface KeySet {
  /** For jwtVerify: throws KeySetUnavailable, or jose's JWKSNoMatchingKey once a fresh key set lacks the key. */
  getKey: JWTVerifyGetKey;
}

type Fetched = { ok: true; keys: JWTVerifyGetKey; kids: ReadonlySet<string> } | { ok: false; reason: string };

/**
 * The key set at `url`, fetched with a timeout, a size cap and no redirects, one fetch at a time and
 * at most one per cooldown; failures back off exponentially and are remembered, and the last good keys
 * stay in use for up to maxStaleMs while fetches fail. Logs once per change of state.
 */
export function createKeySet(url: string, options: JwksOptions = {}, logger?: Logger): KeySet {
  checkJwksOptions(options);
  const maxStaleMs = options.maxStaleMs ?? DEFAULT_JWKS_MAX_STALE_MS;
  const cooldownMs = options.cooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_JWKS_MAX_BYTES;
  const refreshAfter = Math.min(JWKS_REFRESH_MS, maxStaleMs);

  let keys: JWTVerifyGetKey | undefined;
  let kids: ReadonlySet<string> = new Set();
  let fetchedAt = 0;
  let nextFetchAt = 0;
  let failures = 0;
  let pending: Promise<void> | undefined;
  // Why the last fetch failed (undefined after a good one): a log line is written only when it changes.
  let failing: string | undefined;

  const iso = (ms: number) => new Date(ms).toISOString();
  const retryAfter = () => Math.max(1, Math.ceil((nextFetchAt - Date.now()) / 1000));
  const fields = { jwksUrl: url };

  const settle = (result: Fetched) => {
    const at = Date.now();
    if (result.ok) {
      keys = result.keys;
      kids = result.kids;
      fetchedAt = at;
      failures = 0;
      nextFetchAt = at + cooldownMs;
      if (failing !== undefined) logger?.info(fields, `JWKS loaded again from ${url}`);
      failing = undefined;
      return;
    }
    failures++;
    // Even without a cooldown, a failing endpoint is not asked again at once.
    const base = Math.max(cooldownMs, 1_000);
    nextFetchAt = at + Math.min(base * 2 ** (failures - 1), Math.max(base, MAX_BACKOFF_MS));
    if (failing === result.reason) return;
    failing = result.reason;
    if (keys) {
      logger?.warn(
        fields,
        `JWKS refresh failed: ${result.reason}; JWTs are still checked with the keys fetched at ${iso(fetchedAt)}, until ${iso(fetchedAt + maxStaleMs)}`,
      );
    } else {
      logger?.warn(fields, `JWKS fetch failed: ${result.reason}; JWTs are answered 503 until the key set loads`);
    }
  };

  const refresh = (): Promise<void> => {
    pending ??= fetchKeySet(url, timeoutMs, maxBytes)
      .then(settle)
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  /** The keys still allowed, dropping them (said once) when they are too old. */
  const usable = (): JWTVerifyGetKey | undefined => {
    if (keys && Date.now() - fetchedAt > maxStaleMs) {
      // Unused keys also age out; that is worth a line only while the key set cannot be fetched.
      if (failing !== undefined) {
        logger?.error(
          fields,
          `the JWKS keys fetched at ${iso(fetchedAt)} are older than the ${Math.round(maxStaleMs / 1000)} s allowed (maxStaleMs) and no longer used; JWTs are answered 503 until the key set loads`,
        );
      }
      keys = undefined;
    }
    return keys;
  };

  /** Waits for the fetch under way, or starts one when allowed; false when none may run now. */
  const fetchNow = async (): Promise<boolean> => {
    if (!pending && Date.now() < nextFetchAt) return false;
    await refresh();
    return true;
  };

  return {
    async getKey(header, token) {
      let current = usable();
      if (current) {
        // Stale but allowed: answer with these keys, refresh behind the caller.
        if (Date.now() - fetchedAt >= refreshAfter && !pending && Date.now() >= nextFetchAt) void refresh();
        try {
          return await current(header, token);
        } catch (error) {
          // A key id that is loaded but does not fit (another algorithm) is the token's fault.
          if (!(error instanceof errors.JWKSNoMatchingKey) || (header.kid !== undefined && kids.has(header.kid))) {
            throw error;
          }
        }
        // A key id not loaded: perhaps published since, so fetch again when allowed, never more often.
        if (!(await fetchNow())) throw new KeySetUnavailable(retryAfter(), true);
        current = usable();
        if (!current || failures > 0) throw new KeySetUnavailable(retryAfter(), current !== undefined);
        return current(header, token);
      }
      if (!(await fetchNow())) throw new KeySetUnavailable(retryAfter(), false);
      current = usable();
      if (!current) throw new KeySetUnavailable(retryAfter(), false);
      return current(header, token);
    },
  };
}

async function fetchKeySet(url: string, timeoutMs: number, maxBytes: number): Promise<Fetched> {
  try {
    const response = await fetch(url, {
      headers: { accept: "application/json" },
      // A redirect is a configuration to fix, not something to follow silently.
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      return failed(
        `the JWKS endpoint ${url} redirects (HTTP ${response.status}${location ? ` to ${location}` : ""}); configure the URL it redirects to`,
      );
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      return failed(`the JWKS endpoint ${url} answered HTTP ${response.status}`);
    }
    const text = await readCapped(response, maxBytes);
    if (text === undefined) return failed(`the key set from ${url} is larger than ${maxBytes} bytes (maxBytes)`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const notKeySet = `the JWKS endpoint ${url} did not answer with a JSON key set ({"keys": [...]})`;
    if (typeof value !== "object" || value === null || !Array.isArray((value as { keys?: unknown }).keys)) {
      return failed(notKeySet);
    }
    try {
      const set = value as JSONWebKeySet;
      const kids = new Set(set.keys.map((k) => k.kid).filter((k): k is string => typeof k === "string"));
      return { ok: true, keys: createLocalJWKSet(set), kids };
    } catch {
      return failed(notKeySet);
    }
  } catch (error) {
    return failed(fetchFailure(error, "the JWKS endpoint", url, timeoutMs));
  }
}

const failed = (reason: string): Fetched => ({ ok: false, reason });

function checkJwksOptions(options: JwksOptions): void {
  const whole = (name: keyof JwksOptions, min: number) => {
    const value = options[name];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
      throw new HttpConfigError(`jwt jwks.${name} must be a whole number, ${min} or more (got ${value})`);
    }
  };
  whole("maxStaleMs", 0);
  whole("cooldownMs", 0);
  whole("timeoutMs", 1);
  whole("maxBytes", 1);
}
