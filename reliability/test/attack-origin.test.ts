import type { HttpProcess } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, MCP_HEADERS, request } from "./attack-support/http.js";
import { legitimateCall, whileAttacking } from "./attack-support/legit.js";
import { startHttpServer, stopAll } from "./attack-support/server.js";

// DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 makes the browser
// send Host: evil.example:PORT and Origin: http://evil.example:PORT to the loopback server.
const TOKEN = "origin-write-token-0123456789abcdef";
let server: HttpProcess;

beforeAll(async () => {
  server = await startHttpServer(["--demo", "--rate-limit", "100000"], {
    env: { TOOLSHED_TOKENS: `${TOKEN}:tools:read tools:write` },
  });
});
afterAll(stopAll);

const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });

interface OriginCase {
  name: string;
  path?: string;
  method?: string;
  /** A list sends the header once per value. */
  headers: (port: number) => Record<string, string | string[]>;
  status: number;
  /** The JSON-RPC error message of a 403; undefined for an accepted request. */
  message?: (port: number) => string;
}

const cases: OriginCase[] = [
  {
    name: "the attacker's Host and Origin (rebinding)",
    headers: (p) => ({ host: `evil.example:${p}`, origin: `http://evil.example:${p}` }),
    status: 403,
    message: (p) => `Invalid Host header: evil.example:${p}`,
  },
  {
    // node:http would keep only the first; both must count, as a proxy may route on either.
    name: "a second Host header naming the attacker",
    headers: (p) => ({ host: [`127.0.0.1:${p}`, `evil.example:${p}`] }),
    status: 403,
    message: (p) => `Invalid Host header: 127.0.0.1:${p}, evil.example:${p}`,
  },
  {
    name: "a foreign Host without a port",
    headers: () => ({ host: "evil.example" }),
    status: 403,
    message: () => "Invalid Host header: evil.example",
  },
  {
    name: "a name that resolves to loopback (127.0.0.1.nip.io)",
    headers: (p) => ({ host: `127.0.0.1.nip.io:${p}` }),
    status: 403,
    message: (p) => `Invalid Host header: 127.0.0.1.nip.io:${p}`,
  },
  {
    name: "localhost on another port",
    headers: (p) => ({ host: `localhost:${p + 1}` }),
    status: 403,
    message: (p) => `Invalid Host header: localhost:${p + 1}`,
  },
  {
    name: "a loopback Host with a foreign Origin",
    headers: (p) => ({ host: `127.0.0.1:${p}`, origin: "https://evil.example" }),
    status: 403,
    message: () => "Invalid Origin header: https://evil.example",
  },
  {
    name: "Origin: null (sandboxed iframe, file://)",
    headers: (p) => ({ host: `127.0.0.1:${p}`, origin: "null" }),
    status: 403,
    message: () => "Invalid Origin header: null",
  },
  {
    name: "a loopback Origin on another port (another local web app)",
    headers: (p) => ({ host: `127.0.0.1:${p}`, origin: `http://localhost:${p + 1}` }),
    status: 403,
    message: (p) => `Invalid Origin header: http://localhost:${p + 1}`,
  },
  {
    name: "a foreign Host on the resource metadata",
    path: "/.well-known/oauth-protected-resource",
    method: "GET",
    headers: () => ({ host: "evil.example" }),
    status: 403,
    message: () => "Invalid Host header: evil.example",
  },
  {
    name: "localhost on the bound port with its own Origin",
    headers: (p) => ({ host: `localhost:${p}`, origin: `http://localhost:${p}` }),
    status: 200,
  },
  { name: "[::1] on the bound port", headers: (p) => ({ host: `[::1]:${p}` }), status: 200 },
  // Issue 36: the probes too (/readyz tells a page whether the database answers).
  {
    name: "a foreign Host on /healthz",
    path: "/healthz",
    method: "GET",
    headers: () => ({ host: "evil.example" }),
    status: 403,
    message: () => "Invalid Host header: evil.example",
  },
  {
    name: "the attacker's Host and Origin on /readyz",
    path: "/readyz",
    method: "GET",
    headers: (p) => ({ host: `evil.example:${p}`, origin: `http://evil.example:${p}` }),
    status: 403,
    message: (p) => `Invalid Host header: evil.example:${p}`,
  },
  {
    name: "a loopback Host with a foreign Origin on /readyz",
    path: "/readyz",
    method: "GET",
    headers: (p) => ({ host: `127.0.0.1:${p}`, origin: "https://evil.example" }),
    status: 403,
    message: () => "Invalid Origin header: https://evil.example",
  },
  {
    name: "a probe naming localhost on /healthz",
    path: "/healthz",
    method: "GET",
    headers: (p) => ({ host: `localhost:${p}` }),
    status: 200,
  },
  {
    name: "a probe on /readyz",
    path: "/readyz",
    method: "GET",
    headers: (p) => ({ host: `127.0.0.1:${p}` }),
    status: 200,
  },
];

describe("Host and Origin checks (DNS rebinding protection)", () => {
  it.each(cases)("$name: $status", async (c) => {
    const res = await whileAttacking(
      () =>
        request(`${server.base}${c.path ?? "/mcp"}`, {
          method: c.method ?? "POST",
          headers: { ...MCP_HEADERS, ...bearer(TOKEN), ...c.headers(server.port) },
          ...(c.method === "GET" ? {} : { body: ping }),
        }),
      () => legitimateCall(server.url, TOKEN),
    );
    expect(res.status, res.text).toBe(c.status);
    if (c.message) {
      expect(res.json).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: c.message(server.port) }, id: null });
    }
  });

  it("a rebinding page gets 403 before its credentials are even looked at", async () => {
    const res = await request(server.url, {
      headers: { ...MCP_HEADERS, host: `evil.example:${server.port}`, origin: `http://evil.example:${server.port}` },
      body: ping,
    });
    expect(res.status).toBe(403);
    expect(res.headers["www-authenticate"]).toBeUndefined();
  });
});
