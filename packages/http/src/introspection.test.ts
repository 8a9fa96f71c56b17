import { INTROSPECTION_CLIENT_ID, INTROSPECTION_CLIENT_SECRET, startAuthorizationServer } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { HttpConfigError } from "./http-errors.js";
import { checkClaims, createIntrospector, type IntrospectionOptions } from "./introspection.js";

const NOW = 1_800_000_000; // seconds
const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function authorizationServer(answer: Parameters<typeof startAuthorizationServer>[0]) {
  const as = await startAuthorizationServer(answer);
  servers.push(as);
  return as;
}

/** A clock the test moves, in ms. */
function clock(startSeconds = NOW) {
  let ms = startSeconds * 1000;
  return { now: () => ms, advance: (by: number) => (ms += by) };
}

const options = (url: string, more: Partial<IntrospectionOptions> = {}): IntrospectionOptions => ({
  url,
  clientId: INTROSPECTION_CLIENT_ID,
  clientSecret: INTROSPECTION_CLIENT_SECRET,
  ...more,
});

const active = { active: true, sub: "alice", scope: "tools:read", exp: NOW + 3600 };

describe("asking the introspection endpoint", () => {
  it("POSTs the token as a form with the client's Basic credentials, form-encoded (RFC 6749 2.3.1)", async () => {
    const as = await authorizationServer(() => active);
    const answer = await createIntrospector(options(as.url)).introspect("opaque-token-1");
    expect(answer).toEqual({ kind: "active", claims: active });
    expect(as.calls).toEqual([
      {
        token: "opaque-token-1",
        tokenTypeHint: "access_token",
        contentType: "application/x-www-form-urlencoded",
        clientId: INTROSPECTION_CLIENT_ID,
        clientSecret: INTROSPECTION_CLIENT_SECRET,
      },
    ]);
  });

  it("active: false is inactive", async () => {
    const as = await authorizationServer(() => ({ active: false }));
    expect(await createIntrospector(options(as.url)).introspect("revoked")).toEqual({ kind: "inactive" });
  });

  it.each([
    [
      "wrong client credentials (401)",
      { clientSecret: "wrong" },
      () => active,
      "the authorization server refused this server's client credentials (HTTP 401 from URL); check the introspection client id and secret: every token is answered 503 until they are right",
    ],
    [
      "a 500",
      {},
      () => (res: import("node:http").ServerResponse) => res.writeHead(500).end("oops"),
      "the introspection endpoint URL answered HTTP 500",
    ],
    [
      "a redirect",
      {},
      () => (res: import("node:http").ServerResponse) =>
        res.writeHead(302, { location: "https://elsewhere.example/introspect" }).end(),
      "the introspection endpoint URL redirects (HTTP 302 to https://elsewhere.example/introspect); configure the URL it redirects to",
    ],
    [
      "HTML",
      {},
      () => (res: import("node:http").ServerResponse) => res.writeHead(200).end("<html>login</html>"),
      "the introspection endpoint URL did not answer with a JSON object (RFC 7662)",
    ],
    [
      "JSON without active",
      {},
      () => ({ sub: "alice" }),
      'the introspection answer from URL has no boolean "active" (RFC 7662)',
    ],
    [
      "an answer over 64 KiB",
      {},
      () => ({ active: true, sub: "alice", padding: "x".repeat(70_000) }),
      "the introspection answer from URL is larger than 64 KiB",
    ],
    [
      "an answer over 64 KiB without content-length",
      {},
      () => (res: import("node:http").ServerResponse) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"active": true, "padding": "');
        for (let i = 0; i < 10; i++) res.write("x".repeat(10_000));
        res.end('"}');
      },
      "the introspection answer from URL is larger than 64 KiB",
    ],
    [
      "no answer within the timeout",
      { timeoutMs: 200 },
      () => new Promise(() => {}),
      "the introspection endpoint URL did not answer within 200 ms",
    ],
  ])("%s: unavailable, with the reason for the log", async (_name, more, answer, reason) => {
    const as = await authorizationServer(answer);
    const result = await createIntrospector(options(as.url, more)).introspect("t");
    expect(result).toEqual({ kind: "unavailable", reason: reason.replace("URL", as.url) });
  });

  it("a server that is down: unavailable, could not reach", async () => {
    const as = await authorizationServer(() => active);
    await as.close();
    const result = await createIntrospector(options(as.url)).introspect("t");
    expect(result).toEqual({
      kind: "unavailable",
      reason: `could not reach the introspection endpoint ${as.url} (ECONNREFUSED)`,
    });
  });
});

describe("the cache", () => {
  it("reuses an active answer until the TTL (default 60 s), then asks again", async () => {
    const as = await authorizationServer(() => active);
    const time = clock();
    const introspector = createIntrospector(options(as.url), time.now);
    await introspector.introspect("tok");
    time.advance(59_000);
    await introspector.introspect("tok");
    expect(as.calls).toHaveLength(1);
    time.advance(1_000);
    await introspector.introspect("tok");
    expect(as.calls).toHaveLength(2);
  });

  it("never past the token's exp, and cacheTtlMs sets the TTL", async () => {
    const as = await authorizationServer(() => ({ ...active, exp: NOW + 20 }));
    const time = clock();
    const introspector = createIntrospector(options(as.url, { cacheTtlMs: 300_000 }), time.now);
    await introspector.introspect("tok");
    time.advance(19_999);
    await introspector.introspect("tok");
    expect(as.calls).toHaveLength(1);
    time.advance(1);
    await introspector.introspect("tok");
    expect(as.calls).toHaveLength(2);
  });

  it("cacheTtlMs: 0 asks every time", async () => {
    const as = await authorizationServer(() => active);
    const introspector = createIntrospector(options(as.url, { cacheTtlMs: 0 }));
    await introspector.introspect("tok");
    await introspector.introspect("tok");
    expect(as.calls).toHaveLength(2);
  });

  it("keeps inactive answers 10 s, so a junk token repeated does not reach the server", async () => {
    const as = await authorizationServer(() => ({ active: false }));
    const time = clock();
    const introspector = createIntrospector(options(as.url), time.now);
    for (let i = 0; i < 5; i++) await introspector.introspect("junk");
    expect(as.calls).toHaveLength(1);
    time.advance(10_000);
    await introspector.introspect("junk");
    expect(as.calls).toHaveLength(2);
  });

  it("never keeps a failure: the next request asks again", async () => {
    let up = false;
    const as = await authorizationServer(() =>
      up ? active : (res: import("node:http").ServerResponse) => res.writeHead(503).end(),
    );
    const introspector = createIntrospector(options(as.url));
    expect((await introspector.introspect("tok")).kind).toBe("unavailable");
    up = true;
    expect((await introspector.introspect("tok")).kind).toBe("active");
    expect(await introspector.introspect("tok")).toEqual({ kind: "active", claims: active });
    expect(as.calls).toHaveLength(2);
  });

  it("concurrent checks of one token share one request", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const as = await authorizationServer(async () => {
      await gate;
      return active;
    });
    const introspector = createIntrospector(options(as.url));
    const answers = Array.from({ length: 5 }, () => introspector.introspect("tok"));
    const other = introspector.introspect("other-tok");
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect(await Promise.all(answers)).toEqual(Array(5).fill({ kind: "active", claims: active }));
    await other;
    expect(as.calls.map((c) => c.token)).toEqual(["tok", "other-tok"]);
  });

  it("holds at most cacheMaxEntries answers, dropping the least recently used", async () => {
    const as = await authorizationServer(() => active);
    const introspector = createIntrospector(options(as.url, { cacheMaxEntries: 2 }));
    await introspector.introspect("a");
    await introspector.introspect("b");
    await introspector.introspect("a"); // a is now the most recently used
    await introspector.introspect("c"); // b goes
    await introspector.introspect("a");
    await introspector.introspect("b");
    expect(as.calls.map((c) => c.token)).toEqual(["a", "b", "c", "b"]);
  });
});

describe("options", () => {
  it.each([
    [
      { url: "ftp://as.example/introspect" },
      'introspection url "ftp://as.example/introspect" is not an http(s) URL, such as https://auth.example.com/oauth2/introspect',
    ],
    [
      { clientSecret: "" },
      "introspection needs this server's client id and secret at the authorization server (clientId, clientSecret)",
    ],
    [{ cacheMaxEntries: 0 }, "introspection cacheMaxEntries must be a whole number, 1 or more (got 0)"],
    [{ cacheTtlMs: -1 }, "introspection cacheTtlMs must be a whole number, 0 or more (got -1)"],
    [{ timeoutMs: 1.5 }, "introspection timeoutMs must be a whole number, 1 or more (got 1.5)"],
  ])("%j is refused with a hint", (more, message) => {
    expect(() => createIntrospector(options("https://as.example/introspect", more))).toThrow(
      new HttpConfigError(message),
    );
  });
});

describe("checkClaims", () => {
  const base = options("https://as.example/introspect");
  const strict = options("https://as.example/introspect", {
    issuer: "https://as.example",
    audience: "https://mcp.example",
  });

  it("gives the subject, issuer (or the URL without iss), client id (or sub), scopes and exp", () => {
    expect(checkClaims({ ...active, client_id: "app", scope: "tools:read  notes:admin" }, base, NOW)).toEqual({
      ok: true,
      subject: "alice",
      issuer: "https://as.example/introspect",
      clientId: "app",
      scopes: ["tools:read", "notes:admin"],
      expiresAt: NOW + 3600,
    });
    expect(checkClaims({ active: true, sub: "bob", iss: "https://as.example" }, base, NOW)).toEqual({
      ok: true,
      subject: "bob",
      issuer: "https://as.example",
      clientId: "bob",
      scopes: [],
    });
  });

  it.each([
    ["expired", { ...active, exp: NOW - 5 }, base, "the token has expired; get a new one"],
    ["not valid yet", { ...active, nbf: NOW + 6 }, base, "the token is not valid yet"],
    ["exp not a number", { ...active, exp: "soon" }, base, "the token's exp is not a number"],
    [
      "another issuer",
      { ...active, iss: "https://evil.example", aud: "https://mcp.example" },
      strict,
      "the token was not issued by https://as.example",
    ],
    [
      "no issuer when one is required",
      { ...active, aud: "https://mcp.example" },
      strict,
      "the token was not issued by https://as.example",
    ],
    [
      "another audience",
      { ...active, iss: "https://as.example", aud: ["https://other.example"] },
      strict,
      "the token was issued for another audience, not this server",
    ],
    [
      "no audience when one is required",
      { ...active, iss: "https://as.example" },
      strict,
      "the token was issued for another audience, not this server",
    ],
    [
      "no sub (client credentials without a subject)",
      { active: true, client_id: "app", scope: "tools:read" },
      base,
      "the token names no user (no sub); this server needs one to keep callers apart, ask the authorization server to include sub in introspection answers",
    ],
  ])("%s: refused", (_name, claims, opts, why) => {
    expect(checkClaims(claims, opts, NOW)).toEqual({ ok: false, why });
  });

  it("allows 5 s of clock difference on exp and nbf", () => {
    expect(checkClaims({ ...active, exp: NOW - 4 }, base, NOW).ok).toBe(true);
    expect(checkClaims({ ...active, nbf: NOW + 5 }, base, NOW).ok).toBe(true);
  });

  it("accepts the audience in a list", () => {
    const claims = { ...active, iss: "https://as.example", aud: ["https://other.example", "https://mcp.example"] };
    expect(checkClaims(claims, strict, NOW).ok).toBe(true);
  });
});
