import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type HttpProcess,
  killChildren,
  MCP_HEADERS,
  rawRequest,
  removeTempDirs,
  runCli,
  startServer,
} from "./helpers.js";

const APP = "https://app.example";
const TOKEN = "browser-token-0123456789abcdef";
const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });

const preflightHeaders = (origin: string) => ({
  origin,
  "access-control-request-method": "POST",
  "access-control-request-headers": "content-type, authorization, mcp-protocol-version",
});

let withCors: HttpProcess;
let without: HttpProcess;

beforeAll(async () => {
  const env = { TOOLSHED_TOKENS: `${TOKEN}:tools:read` };
  [withCors, without] = await Promise.all([startServer(["--cors-origins", APP], { env }), startServer([], { env })]);
});
afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

describe("--cors-origins", () => {
  it("a preflight from an allowed origin gets 204 with what it may send", async () => {
    const res = await rawRequest(withCors.url, { method: "OPTIONS", headers: preflightHeaders(APP) });
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe(APP);
    expect(res.headers["access-control-allow-methods"]).toContain("POST");
    const allowed = String(res.headers["access-control-allow-headers"]).split(", ");
    expect(allowed).toEqual(expect.arrayContaining(["content-type", "authorization", "mcp-protocol-version"]));
  });

  it("a POST from that origin carries Access-Control-Allow-Origin and exposes the MCP headers", async () => {
    const res = await rawRequest(withCors.url, {
      headers: { ...MCP_HEADERS, origin: APP, authorization: `Bearer ${TOKEN}` },
      body: ping,
    });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(APP);
    const exposed = String(res.headers["access-control-expose-headers"]).split(", ");
    expect(exposed).toEqual(expect.arrayContaining(["Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate"]));
  });

  it("a 401 from that origin is readable too, so the page can start the OAuth flow", async () => {
    const res = await rawRequest(withCors.url, { headers: { ...MCP_HEADERS, origin: APP }, body: ping });
    expect(res.status).toBe(401);
    expect(res.headers["access-control-allow-origin"]).toBe(APP);
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer resource_metadata=/);
  });

  it("another origin's preflight is 403, with no Access-Control-Allow-Origin", async () => {
    const res = await rawRequest(withCors.url, {
      method: "OPTIONS",
      headers: preflightHeaders("https://evil.example"),
    });
    expect(res.status).toBe(403);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("without the flag, OPTIONS is not a CORS answer", async () => {
    const res = await rawRequest(without.url, { method: "OPTIONS", headers: preflightHeaders(APP) });
    expect(res.status).not.toBe(204);
    expect(Object.keys(res.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });

  it("an entry that is not an origin is a usage error: one line, exit 2", async () => {
    const { code, stdout, stderr } = await runCli(["--port", "0", "--db", ":memory:", "--cors-origins", `${APP}/app`]);
    expect({ code, stdout, stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: `toolshed-http: CORS origin "${APP}/app" is not an origin; write scheme://host[:port] with no path, as in https://app.example.com\n`,
    });
  });
});
