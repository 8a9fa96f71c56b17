import { connect as connectSocket } from "node:net";
import { legacyInitialize } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  type HttpProcess,
  killChildren,
  MCP_HEADERS,
  post,
  rawRequest,
  removeTempDirs,
  startServer,
} from "./helpers.js";

// One token per concern, so each has its own rate-limit allowance (5 per minute here).
const BODY = "body-token-0123456789abcdef";
const LIMITED = "limited-token-0123456789abcdef";
const OWNER = "owner-token-0123456789abcdef";
const OTHER = "other-token-0123456789abcdef";

let server: HttpProcess;

const init = legacyInitialize();
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  const tokens = [BODY, LIMITED, OWNER, OTHER].map((t) => `${t}:tools:read tools:write`).join(";");
  server = await startServer(
    [
      "--sessions",
      "--max-body",
      "2k",
      "--rate-limit",
      "5",
      // Nothing listens on port 1: the key set cannot be loaded.
      "--jwks-url",
      "http://127.0.0.1:1/jwks.json",
      "--jwt-issuer",
      "https://issuer.test",
      "--jwt-audience",
      "toolshed",
    ],
    { env: { TOOLSHED_TOKENS: tokens } },
  );
});
afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

const bigBody = () => JSON.stringify({ ...init, params: { ...init.params, padding: "x".repeat(3000) } });
const TOO_LARGE = {
  jsonrpc: "2.0",
  error: { code: -32000, message: "Payload Too Large: Request body must not exceed 2048 bytes" },
  id: null,
};

describe("request body limit", () => {
  it("a body over --max-body with a Content-Length is 413", async () => {
    const res = await rawRequest(server.url, { headers: { ...MCP_HEADERS, ...bearer(BODY) }, body: bigBody() });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual(TOO_LARGE);
  });

  it("a chunked body (no Content-Length) is counted as it streams: 413", async () => {
    const body = bigBody();
    const res = await rawRequest(server.url, {
      headers: { ...MCP_HEADERS, ...bearer(BODY) },
      chunks: [body.slice(0, 1000), body.slice(1000, 2000), body.slice(2000)],
    });
    expect(res.headers["content-length"]).toBeDefined();
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual(TOO_LARGE);
  });

  it("a body under the limit is served", async () => {
    const res = await post(server.url, init, bearer(BODY));
    expect(res.status).toBe(200);
  });
});

describe("rate limit", () => {
  it("the sixth request of a token in a minute is 429 with Retry-After; other tokens are not affected", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(server.url, init, bearer(LIMITED))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const limited = await post(server.url, init, bearer(LIMITED));
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.json).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: `Too Many Requests: rate limit exceeded; retry after ${retryAfter} s` },
      id: null,
    });
    expect((await post(server.url, init, bearer(OWNER))).status).toBe(200);
  });
});

describe("auth failures", () => {
  it("a JWT when the key set cannot be loaded is 503 with Retry-After, not 401", async () => {
    const fake = `${Buffer.from('{"alg":"RS256","kid":"k"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}.c2ln`;
    const res = await post(server.url, init, bearer(fake));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("30");
    expect((res.json as { error: { message: string } }).error.message).toBe(
      "Service Unavailable: the server could not load the keys to check the token; retry later",
    );
  });

  it("failed attempts count against the client's address, so guessing tokens is rate limited", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await post(server.url, init, bearer(`guess-${i}-0123456789abcdef`))).status);
    // The 503 above was the first failed attempt from this address.
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });
});

describe("sessions belong to the token that opened them", () => {
  it("another token using the session id gets 404", async () => {
    const { client, transport } = await connect(server.url, { token: OTHER });
    const id = transport.sessionId as string;
    const stolen = await post(
      server.url,
      { jsonrpc: "2.0", id: 5, method: "tools/list" },
      { ...bearer(BODY), "mcp-session-id": id },
    );
    expect(stolen.status).toBe(404);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});

describe("request timeout", () => {
  it("a client that sends its body too slowly gets 408 after --request-timeout", async () => {
    const slow = await startServer(["--request-timeout", "1s"]);
    const socket = connectSocket(slow.port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${slow.port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`,
    );
    const closed = await new Promise<boolean>((resolve) => {
      socket.on("close", () => resolve(true));
      setTimeout(() => resolve(false), 20_000);
    });
    expect(closed).toBe(true);
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(received.slice(received.indexOf("\r\n\r\n") + 4))).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Request Timeout: the request was not received in time; send it again, whole" },
      id: null,
    });
  });
});

describe("requests node:http refuses before the app", () => {
  it("headers over the limit (a long Mcp-Param-* value) get 431 with a JSON-RPC error that says what works", async () => {
    const answer = await rawRequest(server.url, {
      headers: { ...MCP_HEADERS, "mcp-param-region": "x".repeat(20_000) },
      body: "{}",
    });
    expect(answer.status).toBe(431);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(answer.text)).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message:
          "Request Header Fields Too Large: the request's headers exceed the server's limit (node:http's 16 KiB by default); an argument that travels in an Mcp-Param-* header (x-mcp-header) must be short, so send a shorter value",
      },
      id: null,
    });
  });

  it("bytes that are not HTTP get 400 with a JSON-RPC error, and the server goes on", async () => {
    const socket = connectSocket(server.port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.write("HELLO THERE\r\n\r\n");
    await new Promise((resolve) => socket.on("close", resolve));
    expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(received.slice(received.indexOf("\r\n\r\n") + 4)).error.message).toBe(
      "Bad Request: the request is not valid HTTP/1.1; send a POST with JSON to the MCP endpoint",
    );
    const after = await rawRequest(server.url.replace(/\/mcp$/, "/healthz"), { method: "GET" });
    expect(after.status).toBe(200);
  });
});
