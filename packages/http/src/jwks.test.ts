import { type JwksServer, type JwtSignOptions, startJwks } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AuthOptions, type AuthOutcome, createAuthenticator, type JwtOptions } from "./auth.js";
import { HttpConfigError } from "./http-errors.js";

// Only Date is faked: sockets, timeouts and the key-set server run on real time.
const START = Date.UTC(2030, 0, 1);
const ISSUER = "https://issuer.test";
const AUDIENCE = "https://mcp.test/mcp";
const MINUTE = 60_000;
const KEYS_DOWN: AuthOutcome = {
  ok: false,
  status: 503,
  description: "Service Unavailable: the server could not load the keys to check the token; retry later",
};
const newKeyNotLoaded = (retryAfterSeconds: number): AuthOutcome => ({
  ok: false,
  status: 503,
  retryAfterSeconds,
  description: "Service Unavailable: the token is signed with a key the server has not loaded yet; retry later",
});

let jwks: JwksServer;
beforeEach(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(START);
  jwks = await startJwks();
});
afterEach(async () => {
  vi.useRealTimers();
  await jwks.close();
});

const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);
const bearer = async (claims: Record<string, unknown> = {}, options: Partial<JwtSignOptions> = {}) =>
  `Bearer ${await jwks.sign({ scope: "tools:read", ...claims }, { issuer: ISSUER, audience: AUDIENCE, ...options })}`;

function setUp(more: Partial<JwtOptions> = {}, auth: Partial<AuthOptions> = {}) {
  const logs: Array<{ level: string; msg: string | undefined }> = [];
  const log = (level: string) => (_fields: object, msg?: string) => logs.push({ level, msg });
  const authenticator = createAuthenticator({
    jwt: { jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE, ...more },
    logger: { warn: log("warn"), error: log("error"), info: log("info"), debug() {} },
    ...auth,
  });
  if (!authenticator) throw new Error("expected an authenticator");
  return { auth: authenticator, logs };
}

const statuses = (outcomes: AuthOutcome[]) => outcomes.map((o) => (o.ok ? 200 : o.status));
/**
 * Waits for a background refresh to finish: a key id never loaded waits for the fetch under way,
 * and starts none during a back-off, so this adds no fetch where one just ran.
 */
const settle = async (auth: { authenticate(h: string): Promise<AuthOutcome> }) =>
  auth.authenticate(await bearer({}, { kid: "never-published", strangerKey: true }));

describe("an identity-provider outage", () => {
  it("keeps verifying with the last good keys (one refresh per back-off), then 503 with Retry-After once they are older than maxStaleMs", async () => {
    const { auth, logs } = setUp();
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    expect(jwks.fetches()).toBe(1);

    jwks.behave("error");
    advance(11 * MINUTE); // the keys are due for a refresh
    const token = await bearer();
    expect(statuses(await Promise.all(Array.from({ length: 10 }, () => auth.authenticate(token))))).toEqual(
      Array(10).fill(200),
    );
    await settle(auth);
    expect(jwks.fetches()).toBe(2);
    advance(20_000); // within the 30 s back-off: no new fetch
    expect((await auth.authenticate(token)).ok).toBe(true);
    await settle(auth);
    expect(jwks.fetches()).toBe(2);
    advance(MINUTE); // past the back-off: one more try, still verifying
    expect((await auth.authenticate(token)).ok).toBe(true);
    await settle(auth);
    expect(jwks.fetches()).toBe(3);

    advance(24 * 60 * MINUTE); // the keys are now more than 24 h old
    expect(await auth.authenticate(await bearer())).toEqual({ ...KEYS_DOWN, retryAfterSeconds: 120 });
    expect(await auth.authenticate(await bearer())).toEqual({ ...KEYS_DOWN, retryAfterSeconds: 120 });
    expect(jwks.fetches()).toBe(4);

    jwks.behave("ok");
    advance(121_000);
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    expect(jwks.fetches()).toBe(5);
    // Said once per change of state, never once per request.
    const url = jwks.url;
    expect(logs).toEqual([
      {
        level: "warn",
        msg: `JWKS refresh failed: the JWKS endpoint ${url} answered HTTP 500; JWTs are still checked with the keys fetched at 2030-01-01T00:00:00.000Z, until 2030-01-02T00:00:00.000Z`,
      },
      {
        level: "error",
        msg: "the JWKS keys fetched at 2030-01-01T00:00:00.000Z are older than the 86400 s allowed (maxStaleMs) and no longer used; JWTs are answered 503 until the key set loads",
      },
      { level: "info", msg: `JWKS loaded again from ${url}` },
    ]);
  });

  it("maxStaleMs bounds how long the last good keys are honoured", async () => {
    const { auth } = setUp({ jwks: { maxStaleMs: 15 * MINUTE } });
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    jwks.behave("error");
    advance(14 * MINUTE);
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    await settle(auth);
    advance(2 * MINUTE);
    expect(await auth.authenticate(await bearer())).toEqual({ ...KEYS_DOWN, retryAfterSeconds: 60 });
  });

  it("with no keys yet, a failed fetch is remembered: 503 with Retry-After, no new fetch until the back-off ends", async () => {
    jwks.behave("error");
    const { auth, logs } = setUp();
    expect(await auth.authenticate(await bearer())).toEqual({ ...KEYS_DOWN, retryAfterSeconds: 30 });
    advance(10_000);
    expect(await auth.authenticate(await bearer())).toEqual({ ...KEYS_DOWN, retryAfterSeconds: 20 });
    expect(jwks.fetches()).toBe(1);
    expect(logs).toEqual([
      {
        level: "warn",
        msg: `JWKS fetch failed: the JWKS endpoint ${jwks.url} answered HTTP 500; JWTs are answered 503 until the key set loads`,
      },
    ]);
    advance(20_000);
    jwks.behave("ok");
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    expect(jwks.fetches()).toBe(2);
  });
});

describe("junk tokens and a failing identity provider", () => {
  it("50 junk JWTs with unknown key ids make one key-set fetch, not 50", async () => {
    jwks.behave("error");
    const { auth } = setUp();
    const junk = await Promise.all(
      Array.from({ length: 50 }, (_, i) => bearer({}, { kid: `junk-${i}`, strangerKey: true })),
    );
    const outcomes = await Promise.all(junk.map((token) => auth.authenticate(token)));
    expect(statuses(outcomes)).toEqual(Array(50).fill(503));
    expect(jwks.fetches()).toBe(1);
    const again = await Promise.all(junk.map((token) => auth.authenticate(token)));
    expect(statuses(again)).toEqual(Array(50).fill(503));
    expect(jwks.fetches()).toBe(1);
  });

  it("with the keys loaded, unknown key ids refresh at most once per cooldown", async () => {
    const { auth } = setUp();
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    const junk = await Promise.all(
      Array.from({ length: 20 }, (_, i) => bearer({}, { kid: `junk-${i}`, strangerKey: true })),
    );
    const outcomes = await Promise.all(junk.map((token) => auth.authenticate(token)));
    expect(outcomes).toEqual(Array(20).fill(newKeyNotLoaded(30)));
    expect(jwks.fetches()).toBe(1);
    advance(31_000);
    const later = await Promise.all(junk.map((token) => auth.authenticate(token)));
    // One refresh, which did not find them: now they are known not to be the authorization server's.
    expect(jwks.fetches()).toBe(2);
    expect(later[0]).toEqual({
      ok: false,
      status: 401,
      error: "invalid_token",
      description: "Unauthorized: the token is not valid",
    });
    expect(statuses(later.slice(1))).toEqual(Array(19).fill(401));
  });

  it("a hanging provider holds callers for timeoutMs once, then they are answered at once", async () => {
    jwks.behave("hang");
    const { auth } = setUp({ jwks: { timeoutMs: 300 } });
    const token = await bearer();
    let started = performance.now();
    const first = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(token)));
    expect(first).toEqual(Array(20).fill({ ...KEYS_DOWN, retryAfterSeconds: 30 }));
    expect(performance.now() - started).toBeLessThan(2_000);
    started = performance.now();
    expect(await auth.authenticate(token)).toEqual({ ...KEYS_DOWN, retryAfterSeconds: 30 });
    expect(performance.now() - started).toBeLessThan(100);
    expect(jwks.fetches()).toBe(1);
  });
});

describe("bad key-set responses", () => {
  it.each([
    ["huge", (url: string) => `the key set from ${url} is larger than 262144 bytes (maxBytes)`],
    ["not-json", (url: string) => `the JWKS endpoint ${url} did not answer with a JSON key set ({"keys": [...]})`],
    [
      "redirect",
      (url: string) =>
        `the JWKS endpoint ${url} redirects (HTTP 302 to /moved/jwks.json); configure the URL it redirects to`,
    ],
  ] as const)("a %s answer is refused and remembered as a failure", async (behaviour, reason) => {
    jwks.behave(behaviour);
    const { auth, logs } = setUp();
    const token = await bearer();
    const started = performance.now();
    expect(await auth.authenticate(token)).toEqual({ ...KEYS_DOWN, retryAfterSeconds: 30 });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(await auth.authenticate(token)).toEqual({ ...KEYS_DOWN, retryAfterSeconds: 30 });
    expect(jwks.fetches()).toBe(1);
    expect(logs).toEqual([
      { level: "warn", msg: `JWKS fetch failed: ${reason(jwks.url)}; JWTs are answered 503 until the key set loads` },
    ]);
  });

  it("maxBytes caps the key set", async () => {
    const { auth, logs } = setUp({ jwks: { maxBytes: 100 } });
    expect(await auth.authenticate(await bearer())).toEqual({ ...KEYS_DOWN, retryAfterSeconds: 30 });
    expect(logs[0]?.msg).toContain("is larger than 100 bytes (maxBytes)");
  });
});

describe("key rotation", () => {
  it("a key published right after a fetch is 503 + Retry-After until the cooldown ends, then accepted", async () => {
    const { auth } = setUp();
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    await jwks.addKey("key-2");
    advance(5_000);
    const rotated = await bearer({}, { kid: "key-2" });
    expect(await auth.authenticate(rotated)).toEqual(newKeyNotLoaded(25));
    advance(25_000);
    expect((await auth.authenticate(rotated)).ok).toBe(true);
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    expect(jwks.fetches()).toBe(2);
  });

  it("cooldownMs sets the shortest time between two fetches", async () => {
    const { auth } = setUp({ jwks: { cooldownMs: 2_000 } });
    expect((await auth.authenticate(await bearer())).ok).toBe(true);
    await jwks.addKey("key-2");
    const rotated = await bearer({}, { kid: "key-2" });
    expect(await auth.authenticate(rotated)).toEqual(newKeyNotLoaded(2));
    advance(2_000);
    expect((await auth.authenticate(rotated)).ok).toBe(true);
  });
});

describe("clock tolerance", () => {
  const seconds = () => Math.floor(Date.now() / 1000);

  it("allows 5 s by default on nbf and exp", async () => {
    const { auth } = setUp();
    expect((await auth.authenticate(await bearer({}, { notBefore: seconds() + 2 }))).ok).toBe(true);
    expect((await auth.authenticate(await bearer({}, { expiresIn: seconds() - 3 }))).ok).toBe(true);
    expect(await auth.authenticate(await bearer({}, { notBefore: seconds() + 10 }))).toEqual({
      ok: false,
      status: 401,
      error: "invalid_token",
      description: "Unauthorized: the token is not valid yet",
    });
    expect(await auth.authenticate(await bearer({}, { expiresIn: seconds() - 10 }))).toMatchObject({
      status: 401,
      description: "Unauthorized: the token has expired; get a new one",
    });
  });

  it("clockToleranceSec changes it", async () => {
    const { auth } = setUp({ clockToleranceSec: 0 });
    expect(await auth.authenticate(await bearer({}, { notBefore: seconds() + 2 }))).toMatchObject({
      status: 401,
      description: "Unauthorized: the token is not valid yet",
    });
    const lenient = setUp({ clockToleranceSec: 30 }).auth;
    expect((await lenient.authenticate(await bearer({}, { notBefore: seconds() + 20 }))).ok).toBe(true);
  });
});

describe("configuration", () => {
  it.each([
    [{ jwks: { maxStaleMs: -1 } }, "jwt jwks.maxStaleMs must be a whole number, 0 or more (got -1)"],
    [{ jwks: { cooldownMs: 1.5 } }, "jwt jwks.cooldownMs must be a whole number, 0 or more (got 1.5)"],
    [{ jwks: { timeoutMs: 0 } }, "jwt jwks.timeoutMs must be a whole number, 1 or more (got 0)"],
    [{ jwks: { maxBytes: 0 } }, "jwt jwks.maxBytes must be a whole number, 1 or more (got 0)"],
    [{ clockToleranceSec: -1 }, "jwt clockToleranceSec must be a number from 0 to 300 (got -1)"],
    [
      { jwksUrl: "ftp://x/jwks.json" },
      'jwt jwksUrl "ftp://x/jwks.json" is not an http(s) URL, such as https://auth.example.com/jwks.json',
    ],
  ] as const)("%j is refused", (more, message) => {
    expect(() => setUp(more as Partial<JwtOptions>)).toThrow(new HttpConfigError(message));
  });
});
