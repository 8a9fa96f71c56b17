import { INTROSPECTION_CLIENT_ID, INTROSPECTION_CLIENT_SECRET, startAuthorizationServer } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { type AuthOptions, createAuthenticator } from "./auth.js";
import { HttpConfigError } from "./http-errors.js";

const READER = "reader-token-0123456789";
const ADMIN = "admin-token-0123456789";
const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const bearer = (token: string) => `Bearer ${token}`;
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

function authenticator(options: AuthOptions) {
  const auth = createAuthenticator(options);
  if (!auth) throw new Error("expected an authenticator");
  return auth;
}

async function introspecting(answer: (token: string) => unknown, more: Partial<AuthOptions> = {}) {
  const as = await startAuthorizationServer(answer);
  servers.push(as);
  const warnings: Array<{ fields: object; msg: string | undefined }> = [];
  const logger = {
    warn: (fields: object, msg?: string) => warnings.push({ fields, msg }),
    error() {},
    info() {},
    debug() {},
  };
  const auth = authenticator({
    introspection: { url: as.url, clientId: INTROSPECTION_CLIENT_ID, clientSecret: INTROSPECTION_CLIENT_SECRET },
    logger,
    ...more,
  });
  return { auth, as, warnings };
}

describe("scopes beyond tools:read and tools:write", () => {
  it("a static token keeps a scope the server supports (a tool's own, such as notes:admin)", async () => {
    const auth = authenticator({
      tokens: [{ id: "ops", token: ADMIN, scopes: ["tools:write", "notes:admin"] }],
      scopesSupported: ["tools:read", "tools:write", "notes:admin"],
    });
    const outcome = await auth.authenticate(bearer(ADMIN));
    expect(outcome.ok && outcome.authInfo.scopes).toEqual(["tools:write", "notes:admin"]);
  });

  it("a static token naming a scope the server does not support is refused at start-up, with the closest one", () => {
    const make = (scopes: string[]) => () =>
      createAuthenticator({
        tokens: [{ id: "ops", token: ADMIN, scopes }],
        scopesSupported: ["tools:read", "tools:write", "notes:admin"],
      });
    expect(make(["tools:write", "notes:admn"])).toThrow(
      new HttpConfigError(
        'token ops has the scope "notes:admn", which this server does not support; did you mean "notes:admin"? the supported scopes are tools:read, tools:write, notes:admin',
      ),
    );
    expect(make(["tools:read", "billing"])).toThrow(
      new HttpConfigError(
        'token ops has the scope "billing", which this server does not support; the supported scopes are tools:read, tools:write, notes:admin',
      ),
    );
  });

  it("by default only tools:read and tools:write are supported", () => {
    expect(() =>
      createAuthenticator({ tokens: [{ id: "env#1", token: ADMIN, scopes: ["tools:read", "notes:admin"] }] }),
    ).toThrow(
      'token env#1 has the scope "notes:admin", which this server does not support; the supported scopes are tools:read, tools:write',
    );
  });

  it("a static token with neither tools:read nor tools:write is refused at start-up", () => {
    expect(() =>
      createAuthenticator({
        tokens: [{ id: "ops", token: ADMIN, scopes: ["notes:admin"] }],
        scopesSupported: ["notes:admin"],
      }),
    ).toThrow(
      new HttpConfigError(
        "token ops has neither tools:read nor tools:write, so every request with it would be refused; add one of them",
      ),
    );
  });

  it("a supported scope must be an RFC 6749 scope", () => {
    expect(() => createAuthenticator({ tokens: [], scopesSupported: ["notes admin"] })).toThrow(
      new HttpConfigError(
        'scopesSupported: "notes admin" is not a scope; a scope is printable ASCII without spaces, " or \\, as in notes:admin',
      ),
    );
  });

  it("an issued token keeps only the supported scopes, and needs tools:read or tools:write", async () => {
    const { auth } = await introspecting(
      (token) => ({
        active: true,
        sub: token === "only-admin" ? "ops" : "alice",
        scope: token === "only-admin" ? "notes:admin openid" : "openid tools:read notes:admin billing",
        exp: inAnHour(),
      }),
      { scopesSupported: ["tools:read", "tools:write", "notes:admin"] },
    );
    const outcome = await auth.authenticate(bearer("many-scopes"));
    expect(outcome.ok && outcome.authInfo.scopes).toEqual(["tools:read", "notes:admin"]);
    expect(await auth.authenticate(bearer("only-admin"))).toEqual({
      ok: false,
      status: 403,
      error: "insufficient_scope",
      description: "Forbidden: the token needs the scope tools:read or tools:write",
    });
  });
});

describe("token introspection", () => {
  it("an active token: its scopes, its user (issuer and sub) as the owner, introspect:<sub> as the label", async () => {
    const exp = inAnHour();
    const { auth } = await introspecting(() => ({
      active: true,
      sub: "alice:1",
      iss: "https://as.example",
      client_id: "desktop-app",
      scope: "tools:read",
      exp,
    }));
    expect(await auth.authenticate(bearer("opaque-1"))).toEqual({
      ok: true,
      authInfo: {
        token: "opaque-1",
        clientId: "desktop-app",
        scopes: ["tools:read"],
        expiresAt: exp,
        extra: { principal: "introspect:https%3A%2F%2Fas.example:alice%3A1" },
      },
      label: "introspect:alice:1",
      owner: "introspect:https%3A%2F%2Fas.example:alice%3A1",
    });
  });

  it("without iss, the owner is keyed by the introspection URL", async () => {
    const { auth, as } = await introspecting(() => ({ active: true, sub: "alice", scope: "tools:read" }));
    const outcome = await auth.authenticate(bearer("opaque-1"));
    expect(outcome.ok && outcome.owner).toBe(`introspect:${encodeURIComponent(as.url)}:alice`);
  });

  it("one sub from two issuers is two callers", async () => {
    const { auth } = await introspecting((token) => ({
      active: true,
      sub: "alice",
      iss: token === "from-a" ? "https://a.example" : "https://b.example",
      scope: "tools:read",
    }));
    const a = await auth.authenticate(bearer("from-a"));
    const b = await auth.authenticate(bearer("from-b"));
    expect(a.ok && b.ok && a.owner !== b.owner).toBe(true);
  });

  it("an inactive token is 401 invalid_token", async () => {
    const { auth } = await introspecting(() => ({ active: false }));
    expect(await auth.authenticate(bearer("revoked"))).toEqual({
      ok: false,
      status: 401,
      error: "invalid_token",
      description: "Unauthorized: the token is not active (expired, revoked or unknown); get a new one",
    });
  });

  it("a token without sub is 401: a client id alone cannot tell users apart", async () => {
    const { auth } = await introspecting(() => ({ active: true, client_id: "app", scope: "tools:write" }));
    const outcome = await auth.authenticate(bearer("client-credentials"));
    expect(outcome).toMatchObject({ ok: false, status: 401, error: "invalid_token" });
  });

  it("issuer and audience are checked when configured", async () => {
    const as = await startAuthorizationServer((token) => ({
      active: true,
      sub: "alice",
      scope: "tools:read",
      iss: "https://as.example",
      aud: token,
    }));
    servers.push(as);
    const strict = authenticator({
      introspection: {
        url: as.url,
        clientId: INTROSPECTION_CLIENT_ID,
        clientSecret: INTROSPECTION_CLIENT_SECRET,
        issuer: "https://as.example",
        audience: "https://mcp.example",
      },
    });
    expect((await strict.authenticate(bearer("https://mcp.example"))).ok).toBe(true);
    expect(await strict.authenticate(bearer("https://other.example"))).toMatchObject({
      status: 401,
      description: "Unauthorized: the token was issued for another audience, not this server",
    });
  });

  it("wrong client credentials: 503 (the server's own misconfiguration, not the caller's token), said in the log once", async () => {
    const as = await startAuthorizationServer(() => ({ active: true, sub: "alice", scope: "tools:read" }));
    servers.push(as);
    const warnings: Array<{ fields: object; msg: string | undefined }> = [];
    const auth = authenticator({
      introspection: { url: as.url, clientId: INTROSPECTION_CLIENT_ID, clientSecret: "wrong-secret" },
      logger: { warn: (fields, msg) => warnings.push({ fields, msg }), error() {}, info() {}, debug() {} },
    });
    const expected = {
      ok: false,
      status: 503,
      description: "Service Unavailable: the server could not check the token; retry later",
    };
    expect(await auth.authenticate(bearer("opaque-1"))).toEqual(expected);
    expect(await auth.authenticate(bearer("opaque-2"))).toEqual(expected);
    expect(warnings).toEqual([
      {
        fields: { introspectionUrl: as.url },
        msg: `token introspection failed: the authorization server refused this server's client credentials (HTTP 401 from ${as.url}); check the introspection client id and secret: every token is answered 503 until they are right`,
      },
    ]);
  });

  it("allows 5 s of clock difference on nbf and exp by default; clockToleranceSec changes it", async () => {
    const nbf = () => Math.floor(Date.now() / 1000) + 2;
    const lenient = await introspecting(() => ({ active: true, sub: "alice", scope: "tools:read", nbf: nbf() }));
    expect((await lenient.auth.authenticate(bearer("early"))).ok).toBe(true);
    const { as } = lenient;
    const strict = authenticator({
      introspection: {
        url: as.url,
        clientId: INTROSPECTION_CLIENT_ID,
        clientSecret: INTROSPECTION_CLIENT_SECRET,
        clockToleranceSec: 0,
      },
    });
    expect(await strict.authenticate(bearer("early"))).toEqual({
      ok: false,
      status: 401,
      error: "invalid_token",
      description: "Unauthorized: the token is not valid yet",
    });
  });

  it("with a JWKS too, JWT-shaped tokens go to the JWKS and others to introspection", async () => {
    const { as } = await introspecting(() => ({ active: true, sub: "alice", scope: "tools:read" }));
    const auth = authenticator({
      jwt: { jwksUrl: `${as.url.replace("/introspect", "")}/jwks.json`, issuer: "https://as.example", audience: "mcp" },
      introspection: { url: as.url, clientId: INTROSPECTION_CLIENT_ID, clientSecret: INTROSPECTION_CLIENT_SECRET },
    });
    expect(await auth.authenticate(bearer("aaaa.bbbb.cccc"))).toMatchObject({ ok: false, status: 401 });
    expect(as.calls).toHaveLength(0);
    expect((await auth.authenticate(bearer("opaque-token"))).ok).toBe(true);
    expect(as.calls.map((c) => c.token)).toEqual(["opaque-token"]);
  });

  it("without a JWKS, JWT-shaped tokens are introspected too; static tokens never are", async () => {
    const { auth, as } = await introspecting(() => ({ active: true, sub: "alice", scope: "tools:read" }), {
      tokens: [{ id: "reader", token: READER, scopes: ["tools:read"] }],
    });
    expect((await auth.authenticate(bearer("aaaa.bbbb.cccc"))).ok).toBe(true);
    const outcome = await auth.authenticate(bearer(READER));
    expect(outcome.ok && outcome.owner).toBe("static:reader");
    expect(as.calls.map((c) => c.token)).toEqual(["aaaa.bbbb.cccc"]);
  });
});
