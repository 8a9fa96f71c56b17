import { writeFileSync } from "node:fs";
import { connect as connectSocket } from "node:net";
import { join } from "node:path";
import { startJwks } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  type HttpProcess,
  killChildren,
  MCP_HEADERS,
  post,
  rawRequest,
  removeTempDirs,
  resultText,
  startServer,
  tempDir,
} from "./helpers.js";

const WRITE = "write-token-0123456789abcdef";
const READ = "read-token-0123456789abcdef";
const ISSUER = "https://issuer.test";
const AUDIENCE = "https://toolshed.test/mcp";

let server: HttpProcess;
let jwks: Awaited<ReturnType<typeof startJwks>>;
const issuedJwts: string[] = [];

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function jwt(claims: Record<string, unknown>, options: Partial<Parameters<typeof jwks.sign>[1]> = {}) {
  const token = await jwks.sign(claims, { issuer: ISSUER, audience: AUDIENCE, ...options });
  issuedJwts.push(token);
  return token;
}

beforeAll(async () => {
  jwks = await startJwks();
  const dir = tempDir().dir;
  const tokensFile = join(dir, "tokens.txt");
  writeFileSync(tokensFile, `# operators\n${WRITE} tools:read tools:write\n`);
  server = await startServer(
    ["--demo", "--tokens-file", tokensFile, "--jwks-url", jwks.url, "--jwt-issuer", ISSUER, "--jwt-audience", AUDIENCE],
    { env: { TOOLSHED_TOKENS: `${READ}:tools:read` } },
  );
});
afterAll(async () => {
  await killChildren();
  await jwks?.close();
  removeTempDirs();
});

describe("bearer tokens", () => {
  it("no token: 401 with WWW-Authenticate pointing at the resource metadata", async () => {
    const res = await post(server.url, ping);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${server.base}/.well-known/oauth-protected-resource"`,
    );
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Unauthorized: send the header Authorization: Bearer <token>" },
      id: null,
    });
  });

  it("a wrong token: 401 with error=invalid_token", async () => {
    const res = await post(server.url, ping, bearer("not-a-real-token-at-all-123456"));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${server.base}/.well-known/oauth-protected-resource", error="invalid_token", error_description="Unauthorized: the token is not valid"`,
    );
    expect((res.json as { error: { message: string } }).error.message).toBe("Unauthorized: the token is not valid");
  });

  it("another scheme than Bearer: 401", async () => {
    const res = await post(server.url, ping, { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` });
    expect(res.status).toBe(401);
  });

  it("a write token sees and calls every tool", async () => {
    const { client } = await connect(server.url, { token: WRITE });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("create_note");
    const created = await client.callTool({ name: "create_note", arguments: { title: "from http", body: "hello" } });
    expect(created.isError).toBeUndefined();
    await client.close();
  });

  it("a read-only token does not see write tools, and calling one is permission_denied", async () => {
    const { client } = await connect(server.url, { token: READ });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("get_note");
    expect(names).not.toContain("create_note");
    expect(names).not.toContain("crm_bulk_update_tier");
    const denied = await client.callTool({ name: "create_note", arguments: { title: "nope", body: "x" } });
    expect(denied.isError).toBe(true);
    expect(resultText(denied)).toMatch(
      /^Error executing tool create_note: your credentials allow read-only tools only; create_note changes data\. Read-only tools: .*get_note/,
    );
    expect(denied._meta?.["toolshed.dev/error"]).toMatchObject({ kind: "tool", code: "permission_denied" });
    const read = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(read.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    await client.close();
  });

  it("a token in the query string is rejected (400), even a valid one", async () => {
    for (const name of ["access_token", "token"]) {
      const res = await post(`${server.url}?${name}=${WRITE}`, ping);
      expect(res.status).toBe(400);
      expect((res.json as { error: { message: string } }).error.message).toBe(
        `Bad Request: tokens are not accepted in the URL (found "${name}"); send the header Authorization: Bearer <token>`,
      );
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_request"');
    }
  });

  it("publishes the OAuth protected resource metadata (RFC 9728)", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const res = await fetch(`${server.base}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource: `${server.base}/mcp`,
        authorization_servers: [ISSUER],
        scopes_supported: ["tools:read", "tools:write"],
        bearer_methods_supported: ["header"],
        resource_name: "toolshed",
      });
    }
  });
});

describe("JWTs checked against a JWKS", () => {
  it("a valid JWT with tools:read gets the read-only view", async () => {
    const token = await jwt({ scope: "tools:read" });
    const { client } = await connect(server.url, { token });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("get_note");
    expect(names).not.toContain("create_note");
    await client.close();
  });

  it("a valid JWT with both scopes (scp array) gets every tool", async () => {
    const token = await jwt({ scp: ["tools:read", "tools:write"] });
    const { client } = await connect(server.url, { token });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("create_note");
    await client.close();
  });

  it.each([
    [
      "expired",
      { expiresIn: Math.floor(Date.now() / 1000) - 3600 },
      "Unauthorized: the token has expired; get a new one",
    ],
    [
      "for another audience",
      { audience: "https://other.test" },
      "Unauthorized: the token was issued for another audience, not this server",
    ],
    ["from another issuer", { issuer: "https://evil.test" }, `Unauthorized: the token was not issued by ${ISSUER}`],
    ["signed by another key", { strangerKey: true }, "Unauthorized: the token is not valid"],
  ])("a JWT %s is 401 invalid_token", async (_what, options, message) => {
    const token = await jwt({ scope: "tools:read tools:write" }, options);
    const res = await post(server.url, ping, bearer(token));
    expect(res.status).toBe(401);
    expect((res.json as { error: { message: string } }).error.message).toBe(message);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("a JWT without a tools scope is 403 insufficient_scope", async () => {
    const token = await jwt({ scope: "openid profile" });
    const res = await post(server.url, ping, bearer(token));
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(res.headers.get("www-authenticate")).toContain('scope="tools:read tools:write"');
  });
});

describe("Host and Origin (DNS rebinding protection)", () => {
  it("a foreign Host is 403", async () => {
    const res = await rawRequest(server.url, {
      headers: { ...MCP_HEADERS, ...bearer(WRITE), host: "evil.example:80" },
      body: JSON.stringify(ping),
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Invalid Host header: evil.example:80" },
      id: null,
    });
  });

  it("localhost on the bound port is fine; on another port it is not", async () => {
    const good = await rawRequest(server.url, {
      headers: { ...MCP_HEADERS, ...bearer(WRITE), host: `localhost:${server.port}` },
      body: JSON.stringify(ping),
    });
    expect(good.status).toBe(200);
    const other = await rawRequest(server.url, {
      headers: { ...MCP_HEADERS, ...bearer(WRITE), host: `localhost:${server.port + 1}` },
      body: JSON.stringify(ping),
    });
    expect(other.status).toBe(403);
  });

  it("with any Host allowed, one that is not a host name is 400, not an internal error", async () => {
    const open = await startServer(["--demo", "--allowed-hosts", "*"], {
      env: { TOOLSHED_TOKENS: `${READ}:tools:read` },
    });
    for (const host of ["a b", "exa%mple", "[zz"]) {
      // Unauthenticated: the 401 would name the metadata URL built from this Host.
      const res = await rawRequest(open.url, { headers: { ...MCP_HEADERS, host }, body: JSON.stringify(ping) });
      expect(res.status, host).toBe(400);
      expect(JSON.parse(res.text)).toEqual({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Bad Request: the Host header is not a host name (name or name:port)" },
        id: null,
      });
    }
    const fine = await rawRequest(open.url, {
      headers: { ...MCP_HEADERS, host: "mcp.example" },
      body: JSON.stringify(ping),
    });
    expect(fine.status).toBe(401);
  });

  it("an absolute-form target naming another host is 400 and never echoed; one naming the Host is served", async () => {
    const open = await startServer(["--demo", "--allowed-hosts", "*"], {
      env: { TOOLSHED_TOKENS: `${READ}:tools:read` },
    });
    const raw = (target: string, host: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connectSocket(open.port, "127.0.0.1", () => {
          const body = JSON.stringify(ping);
          socket.end(
            `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
              `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
          );
        });
        let text = "";
        socket.on("data", (chunk) => {
          text += chunk.toString();
        });
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
    const host = `127.0.0.1:${open.port}`;
    expect(await raw("http://evil.example/mcp", host)).toContain(
      "the request target names another host than the Host header",
    );
    for (const target of ["http://evil.example/mcp", "http://evil.example/.well-known/oauth-protected-resource"]) {
      const answer = await raw(target, host);
      // Refused (400), or not found as a path at all (404): never served, never named in an answer.
      expect(answer, target).toMatch(/^HTTP\/1\.1 40[04] /);
      expect(answer.toLowerCase(), target).not.toContain("evil.example");
    }
    // The same host in the target, or the path only: served (401, as no token was sent), naming the Host.
    for (const target of [`http://${host}/mcp`, "/mcp"]) {
      const answer = await raw(target, host);
      expect(answer, target).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer, target).toContain(`resource_metadata="http://${host}/.well-known/oauth-protected-resource"`);
    }
    // An explicit default port in Host matches a target without it.
    expect(await raw("http://mcp.example/mcp", "mcp.example:80")).toMatch(/^HTTP\/1\.1 401 /);
  });

  it("a foreign Origin is 403; the server's own origin is fine", async () => {
    const evil = await post(server.url, ping, { ...bearer(WRITE), origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.json).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Invalid Origin header: https://evil.example" },
      id: null,
    });
    const own = await post(server.url, ping, { ...bearer(WRITE), origin: server.base });
    expect(own.status).toBe(200);
  });
});

describe("logs", () => {
  it("never contain a token, only its label", async () => {
    await post(server.url, ping, bearer(READ));
    const line = await server.waitForLog((l) => l.msg === "request" && l.tokenId === "env#1");
    expect(line.status).toBe(200);
    const logs = server.stderr();
    for (const secret of [WRITE, READ, ...issuedJwts]) expect(logs).not.toContain(secret);
  });
});
