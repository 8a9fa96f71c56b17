// --sessions-per-client: one credential (or, without auth, one address) cannot fill every session
// slot; over its quota its least recently used idle session is closed, and a session busy with a
// request or an SSE stream never is.
import { execFile } from "node:child_process";
import { request as httpRequest } from "node:http";
import { promisify } from "node:util";
import { legacyInitialize } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureBuilt,
  FIXTURE,
  type HttpProcess,
  killChildren,
  MCP_HEADERS,
  post,
  removeTempDirs,
  runCli,
  startServer,
} from "./helpers.js";

const A = "quota-client-a-0123456789abcdef";
const B = "quota-client-b-0123456789abcdef";
const C = "quota-client-c-0123456789abcdef";

let server: HttpProcess;
beforeAll(async () => {
  server = await startServer(["--demo", "--sessions", "--sessions-per-client", "3"], {
    script: FIXTURE,
    env: { TOOLSHED_TOKENS: `${A}:tools:read;${B}:tools:read;${C}:tools:read` },
  });
});
afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

const init = legacyInitialize();
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const inSession = (token: string, id: string) => ({
  ...bearer(token),
  "mcp-session-id": id,
  "mcp-protocol-version": "2025-06-18",
});

async function openSession(token: string): Promise<string> {
  const res = await post(server.url, init, bearer(token));
  expect(res.status, res.text).toBe(200);
  return res.headers.get("mcp-session-id") as string;
}
const pingStatus = async (token: string, id: string) =>
  (await post(server.url, { jsonrpc: "2.0", id: 2, method: "ping" }, inSession(token, id))).status;

describe("--sessions-per-client", () => {
  it("a client over its quota loses its least recently used idle session; other clients keep theirs", async () => {
    const [s1, s2, s3] = [await openSession(A), await openSession(A), await openSession(A)] as string[];
    const b1 = await openSession(B);
    expect(await pingStatus(A, s1 as string)).toBe(200); // s2 is now the least recently used
    const s4 = await openSession(A);
    expect(await pingStatus(A, s2 as string)).toBe(404);
    for (const id of [s1, s3, s4] as string[]) expect(await pingStatus(A, id)).toBe(200);
    expect(await pingStatus(B, b1)).toBe(200);
    const line = await server.waitForLog((l) => l.msg.startsWith("session evicted") && l.sessionId === s2);
    expect(line).toMatchObject({ tokenId: "env#1", limit: 3 });
  });

  it("a session with a request running or an SSE stream open is never evicted: 429 until one is idle", async () => {
    const [slow, streamed1, streamed2] = [await openSession(C), await openSession(C), await openSession(C)] as string[];
    const running = post(
      server.url,
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "test_slow", arguments: { ms: 4000, tag: "q" } } },
      inSession(C, slow as string),
    );
    const streams = [streamed1, streamed2].map((id) => {
      const controller = new AbortController();
      const opened = fetch(server.url, {
        headers: { ...inSession(C, id as string), accept: "text/event-stream" },
        signal: controller.signal,
      });
      return { controller, opened };
    });
    for (const s of streams) expect((await s.opened).status).toBe(200);
    await server.waitForLog((l) => l.msg === "test_slow started" && l.tag === "q");

    const refused = await post(server.url, init, bearer(C));
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message:
          "Too Many Requests: this client has 3 sessions open and each is busy (a request or an SSE stream); end one with DELETE and its Mcp-Session-Id, or close its stream, then initialize again",
      },
      id: null,
    });
    expect(refused.headers.get("mcp-session-id")).toBeNull();

    // The stream of streamed1 ends: that session is idle now, and it is the one evicted.
    streams[0]?.controller.abort();
    let reopened = await post(server.url, init, bearer(C));
    for (let i = 0; i < 50 && reopened.status === 429; i++) {
      await new Promise((r) => setTimeout(r, 100));
      reopened = await post(server.url, init, bearer(C));
    }
    expect(reopened.status).toBe(200);
    expect(await pingStatus(C, streamed1 as string)).toBe(404);
    expect(await pingStatus(C, streamed2 as string)).toBe(200);
    const done = await running;
    expect(done.status).toBe(200);
    expect(done.text).toContain('"structuredContent":{"tag":"q","waitedMs":4000}');
    expect(await pingStatus(C, slow as string)).toBe(200);
    streams[1]?.controller.abort();
  });

  it("without authentication the quota is per client address", async () => {
    const open = await startServer(["--demo", "--sessions", "--sessions-per-client", "2"]);
    const from = (localAddress: string, headers: Record<string, string>, body: unknown) =>
      new Promise<{ status: number; session: string | undefined }>((resolve, reject) => {
        const req = httpRequest(
          open.url,
          { method: "POST", localAddress, agent: false, headers: { ...MCP_HEADERS, ...headers } },
          (res) => {
            res.resume();
            res.on("end", () => {
              const session = res.headers["mcp-session-id"];
              resolve({ status: res.statusCode ?? 0, session: typeof session === "string" ? session : undefined });
            });
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify(body));
      });
    const openFrom = async (address: string) => {
      const res = await from(address, {}, init);
      expect(res.status).toBe(200);
      return res.session as string;
    };
    const ping = async (address: string, id: string) =>
      (
        await from(
          address,
          { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
          { jsonrpc: "2.0", id: 2, method: "ping" },
        )
      ).status;
    const here1 = await openFrom("127.0.0.1");
    const here2 = await openFrom("127.0.0.1");
    const there1 = await openFrom("127.0.0.2");
    const there2 = await openFrom("127.0.0.2");
    const there3 = await openFrom("127.0.0.2");
    expect(await ping("127.0.0.2", there1)).toBe(404);
    for (const id of [here1, here2]) expect(await ping("127.0.0.1", id)).toBe(200);
    for (const id of [there2, there3]) expect(await ping("127.0.0.2", id)).toBe(200);
  });

  it("takes a whole number; a bad value is a one-line hint (exit 2)", async () => {
    const bad = await runCli(["--sessions", "--sessions-per-client", "lots"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('toolshed-http: --sessions-per-client "lots" must be a whole number from 1 to 1000000\n');
    const help = await runCli(["--help"]);
    expect(help.stdout).toMatch(/--sessions-per-client N +sessions one token or address may hold \(default 100\)/);
  });
});

describe("memory per session", () => {
  it("2,000 open sessions take less than 40 KB of heap each", async () => {
    ensureBuilt();
    const script = new URL("./fixtures/session-memory.mjs", import.meta.url).pathname;
    const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", script, "2000"], {
      timeout: 120_000,
    });
    const { sessions, heapPerSession } = JSON.parse(stdout) as { sessions: number; heapPerSession: number };
    expect(sessions).toBe(2000);
    expect(heapPerSession).toBeLessThan(40_000);
  }, 150_000);
});
