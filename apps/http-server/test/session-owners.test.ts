// Who owns a session, a rate-limit bucket and a 2026 requestState: credentials that once shared a
// log label (`jwt:alice`, a shared token id, a JWT's client_id) are distinct callers.
import { writeFileSync } from "node:fs";
import { legacyInitialize, startJwks } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE, type HttpProcess, killChildren, post, removeTempDirs, startServer, tempDir } from "./helpers.js";

const ISSUER = "https://issuer.test";
const AUDIENCE = "https://toolshed.test/mcp";
const BOTH = ["tools:read", "tools:write"];
// Static tokens whose ids look like, or equal, another credential's label.
const STATIC_JWT_ALICE = "static-named-jwt-alice-0123456789";
const STATIC_ALICE = "static-named-alice-0123456789abc";
const SHARED_READ = "shared-id-read-token-0123456789";
const SHARED_WRITE = "shared-id-write-token-0123456789";

let sessions: HttpProcess;
let limited: HttpProcess;
let jwks: Awaited<ReturnType<typeof startJwks>>;
const jwt = (claims: Record<string, unknown>, subject: string | null) =>
  jwks.sign({ scope: BOTH.join(" "), ...claims }, { issuer: ISSUER, audience: AUDIENCE, subject });
const tokens: Record<string, string> = {};

beforeAll(async () => {
  jwks = await startJwks();
  const file = tempDir().file("tokens.json");
  writeFileSync(
    file,
    JSON.stringify([
      { id: "jwt:alice", token: STATIC_JWT_ALICE, scopes: BOTH },
      { id: "alice", token: STATIC_ALICE, scopes: BOTH },
      { id: "shared", token: SHARED_READ, scopes: ["tools:read"] },
      { id: "shared", token: SHARED_WRITE, scopes: BOTH },
    ]),
  );
  const auth = ["--tokens-file", file, "--jwks-url", jwks.url, "--jwt-issuer", ISSUER, "--jwt-audience", AUDIENCE];
  [sessions, limited] = await Promise.all([
    startServer(["--demo", "--sessions", ...auth], { script: FIXTURE }),
    startServer(["--demo", "--rate-limit", "2", ...auth]),
  ]);
  Object.assign(tokens, {
    staticJwtAlice: STATIC_JWT_ALICE,
    staticAlice: STATIC_ALICE,
    sharedRead: SHARED_READ,
    sharedWrite: SHARED_WRITE,
    alice: await jwt({}, "alice"),
    bobAsClientAlice: await jwt({ client_id: "alice" }, "bob"),
    carol: await jwt({}, "carol"),
    daveAsClientCarol: await jwt({ client_id: "carol" }, "dave"),
  });
});
afterAll(async () => {
  await killChildren();
  await jwks?.close();
  removeTempDirs();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const init = legacyInitialize();
const ping = { jsonrpc: "2.0", id: 2, method: "ping" };

async function openSession(token: string): Promise<string> {
  const res = await post(sessions.url, init, bearer(token));
  expect(res.status, res.text).toBe(200);
  return res.headers.get("mcp-session-id") as string;
}
const useSession = (token: string, id: string) =>
  post(sessions.url, ping, { ...bearer(token), "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
const deleteSession = (token: string, id: string) =>
  fetch(sessions.url, { method: "DELETE", headers: { ...bearer(token), "mcp-session-id": id } });

// [name, first credential, second credential]: each pair used to be one owner.
const PAIRS: Array<[string, string, string]> = [
  ["a static token with the id jwt:alice, and the JWT of user alice", "staticJwtAlice", "alice"],
  ["a read token and a write token with the same id", "sharedRead", "sharedWrite"],
  ["the JWTs of users carol and dave, dave's issued to the client carol", "carol", "daveAsClientCarol"],
];

describe("credentials that share a label are different owners", () => {
  it.each(PAIRS)("%s: neither can use or DELETE the other's session", async (_name, a, b) => {
    for (const [owner, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const id = await openSession(tokens[owner] as string);
      const used = await useSession(tokens[other] as string, id);
      expect(used.status).toBe(404);
      expect(used.json).toEqual({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
      expect((await deleteSession(tokens[other] as string, id)).status).toBe(404);
      expect((await useSession(tokens[owner] as string, id)).status).toBe(200);
      expect((await deleteSession(tokens[owner] as string, id)).status).toBe(200);
    }
  });

  it.each(PAIRS)("%s: each has its own rate-limit bucket", async (_name, a, b) => {
    const call = (key: string) => post(limited.url, ping, bearer(tokens[key] as string));
    expect((await call(a)).status).toBe(200);
    expect((await call(a)).status).toBe(200);
    expect((await call(a)).status).toBe(429);
    expect((await call(b)).status).toBe(200);
    expect((await call(b)).status).toBe(200);
    expect((await call(b)).status).toBe(429);
  });
});

describe("a JWT must name its user (sub)", () => {
  const NO_SUBJECT =
    "Unauthorized: the token names no user (no sub claim); this server needs one to keep users apart, ask the authorization server for a token with sub";

  it.each([
    ["no sub, client_id or azp", {}],
    ["client_id=alice but no sub", { client_id: "alice" }],
    ["azp=alice but no sub", { azp: "alice" }],
  ])("a JWT with %s is 401 invalid_token, even on a session of alice", async (_name, claims) => {
    const id = await openSession(tokens.alice as string);
    const token = await jwt(claims, null);
    for (const res of [await post(sessions.url, init, bearer(token)), await useSession(token, id)]) {
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: NO_SUBJECT }, id: null });
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
    expect((await useSession(tokens.alice as string, id)).status).toBe(200);
  });
});

describe("a 2026-07-28 requestState is bound to its caller", () => {
  const V = "2026-07-28";
  const call = (token: string, id: number, extra: Record<string, unknown> = {}) =>
    post(
      sessions.url,
      {
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          },
          name: "test_confirm",
          arguments: { action: "deploy" },
          ...extra,
        },
      },
      { ...bearer(token), "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "test_confirm" },
    );
  const answer = { inputResponses: { confirm: { action: "accept", content: { ok: true } } } };

  it.each([
    ["the JWT of user bob issued to the client alice", "bobAsClientAlice"],
    ["a static token with the id alice", "staticAlice"],
    ["a static token with the id jwt:alice", "staticJwtAlice"],
  ])("alice's state sent by %s is -32602; alice's next token completes", async (_name, other) => {
    const first = await call(tokens.alice as string, 1);
    const { requestState } = (first.json as { result: { resultType: string; requestState: string } }).result;
    expect(typeof requestState).toBe("string");
    const foreign = await call(tokens[other] as string, 2, { ...answer, requestState });
    expect(foreign.json).toMatchObject({ id: 2, error: { code: -32602 } });
    expect((foreign.json as { error: { message: string } }).error.message).toMatch(/belongs to another request/);
    // A new token for the same user (a refresh) is the same caller.
    const refreshed = await jwt({}, "alice");
    const own = await call(refreshed, 3, { ...answer, requestState });
    expect(own.json).toMatchObject({
      id: 3,
      result: { resultType: "complete", structuredContent: { action: "deploy", confirmed: true } },
    });
  });
});
