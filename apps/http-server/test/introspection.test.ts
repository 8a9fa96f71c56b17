import { writeFileSync } from "node:fs";
import { type AuthorizationServer, startAuthorizationServer } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  type HttpProcess,
  killChildren,
  post,
  removeTempDirs,
  resultText,
  runCli,
  startServer,
  tempDir,
} from "./helpers.js";

const CLIENT_ID = "toolshed-http";
const CLIENT_SECRET = "introspection-secret-0123456789";
const READER = "opaque-reader-token-0123456789";
const COUNTED = "opaque-counted-token-0123456789";
const REVOKED = "opaque-revoked-token-0123456789";

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Two tokens are active (tools:read), and only when the hint says access_token (RFC 7662). */
function answer(token: string, form: URLSearchParams) {
  const active = (token === READER || token === COUNTED) && form.get("token_type_hint") === "access_token";
  if (!active) return { active: false };
  return {
    active: true,
    sub: token === READER ? "alice" : "bob",
    client_id: "desktop-app",
    scope: "tools:read openid",
    iss: "https://as.test",
    exp: Math.floor(Date.now() / 1000) + 3600,
  };
}

const credentials = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET };

let as: AuthorizationServer;
let server: HttpProcess;
const introspect = (url: string) => ["--introspection-url", url, "--introspection-client-id", CLIENT_ID];

beforeAll(async () => {
  as = await startAuthorizationServer(answer, credentials);
  server = await startServer(["--demo", ...introspect(as.url)], {
    env: { TOOLSHED_INTROSPECTION_CLIENT_SECRET: CLIENT_SECRET },
  });
});
afterAll(async () => {
  await killChildren();
  await as?.close();
  removeTempDirs();
});

describe("opaque tokens checked by introspection", () => {
  it("an active tools:read token lists only read-only tools and calls one", async () => {
    const { client } = await connect(server.url, { token: READER });
    const tools = (await client.listTools()).tools;
    const names = tools.map((t) => t.name);
    expect(names).toContain("get_note");
    expect(names).not.toContain("create_note");
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const result = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain("groceries");
    await client.close();
    const line = server.logs().find((l) => l.msg === "request" && l.tokenId === "introspect:alice");
    expect(line).toBeDefined();
  });

  it("an inactive token is 401 with WWW-Authenticate error=invalid_token", async () => {
    const res = await post(server.url, ping, bearer(REVOKED));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${server.base}/.well-known/oauth-protected-resource", error="invalid_token", error_description="Unauthorized: the token is not active (expired, revoked or unknown); get a new one"`,
    );
  });

  it("a token used again is introspected once", async () => {
    for (let i = 0; i < 4; i++) expect((await post(server.url, ping, bearer(COUNTED))).status).toBe(200);
    expect(as.calls.filter((call) => call.token === COUNTED)).toHaveLength(1);
  });

  it("no token, or an opaque one, never appears in the log", () => {
    for (const secret of [READER, COUNTED, REVOKED, CLIENT_SECRET]) expect(server.stderr()).not.toContain(secret);
  });
});

describe("when the token cannot be checked", () => {
  it("the authorization server down: 503 with Retry-After, not 401", async () => {
    const down = await startAuthorizationServer(answer, credentials);
    await down.close();
    // Introspection is authentication enough to serve a non-loopback address.
    const alone = await startServer(["--host", "0.0.0.0", ...introspect(down.url)], {
      env: { TOOLSHED_INTROSPECTION_CLIENT_SECRET: CLIENT_SECRET },
    });
    const res = await post(`http://127.0.0.1:${alone.port}/mcp`, ping, bearer(READER));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("30");
    expect((res.json as { error: { message: string } }).error.message).toBe(
      "Service Unavailable: the server could not check the token; retry later",
    );
  });

  it("a wrong client secret (from its file): 503, and the log says the server's credentials were refused", async () => {
    const secretFile = tempDir().file("introspection-secret");
    writeFileSync(secretFile, "not-the-secret-0123456789\n");
    const misconfigured = await startServer(
      ["--demo", ...introspect(as.url), "--introspection-client-secret-file", secretFile],
      {},
    );
    const res = await post(misconfigured.url, ping, bearer(READER));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("30");
    const warning = await misconfigured.waitForLog((l) => l.msg.startsWith("token introspection failed"), 5_000);
    expect(warning.msg).toBe(
      `token introspection failed: the authorization server refused this server's client credentials (HTTP 401 from ${as.url}); check the introspection client id and secret: every token is answered 503 until they are right`,
    );
    expect(misconfigured.stderr()).not.toContain("not-the-secret-0123456789");
  });

  it("a secret file that cannot be read or is empty is a usage error: one line, exit 2", async () => {
    const missing = tempDir().file("missing-secret");
    const empty = tempDir().file("empty-secret");
    writeFileSync(empty, "\n");
    const args = ["--port", "0", "--db", ":memory:", ...introspect(as.url), "--introspection-client-secret-file"];
    expect(await runCli([...args, missing])).toEqual({
      code: 2,
      stdout: "",
      stderr: `toolshed-http: cannot read the secret file ${missing} (ENOENT); check --introspection-client-secret-file\n`,
    });
    expect(await runCli([...args, empty])).toEqual({
      code: 2,
      stdout: "",
      stderr: `toolshed-http: ${empty} is empty; put the secret on its first line (--introspection-client-secret-file)\n`,
    });
  });
});
