import { afterEach, describe, expect, it } from "vitest";
import {
  connect,
  FIXTURE,
  killChildren,
  post,
  rawRequest,
  removeTempDirs,
  resultText,
  startServer,
} from "./helpers.js";

afterEach(async () => {
  await killChildren();
  removeTempDirs();
});

const slowCall = (id: number, ms: number, tag: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "test_slow", arguments: { ms, tag } },
});

describe("graceful shutdown on SIGTERM", () => {
  it("stateless: in-flight calls finish with their results, new connections are refused, exit 0", async () => {
    const server = await startServer(["--shutdown-timeout", "30s"], { script: FIXTURE });
    const calls = [1, 2, 3].map((i) => post(server.url, slowCall(i, 1500, `call-${i}`)));
    for (const i of [1, 2, 3]) await server.waitForLog((l) => l.msg === "test_slow started" && l.tag === `call-${i}`);
    server.proc.kill("SIGTERM");
    await server.waitForLog((l) => l.msg === "shutting down");
    // Refused, or reset when the connection raced the closing listener into its backlog.
    const refused = await rawRequest(`${server.base}/healthz`, { method: "GET" }).catch((e: { code: string }) => e);
    expect(["ECONNREFUSED", "ECONNRESET"]).toContain((refused as { code?: string }).code);
    const answers = await Promise.all(calls);
    for (const [index, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      const result = (answer.json as { result: { structuredContent: unknown; isError?: boolean } }).result;
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({ tag: `call-${index + 1}`, waitedMs: 1500 });
    }
    expect(await server.exited).toBe(0);
    expect(server.logs().find((l) => l.msg === "shutting down")?.inFlight).toBe(3);
    expect(server.logs().some((l) => l.msg === "stopped")).toBe(true);
  });

  it("sessions: a call in flight over the SDK client finishes, then the process exits 0", async () => {
    const server = await startServer(["--sessions", "--shutdown-timeout", "30s"], { script: FIXTURE });
    const { client } = await connect(server.url);
    const call = client.callTool({ name: "test_slow", arguments: { ms: 1500, tag: "in-session" } });
    await server.waitForLog((l) => l.msg === "test_slow started" && l.tag === "in-session");
    server.proc.kill("SIGTERM");
    const result = await call;
    expect(result.structuredContent).toEqual({ tag: "in-session", waitedMs: 1500 });
    expect(await server.exited).toBe(0);
    await client.close();
  });

  it("calls still running at --shutdown-timeout are cancelled and answered, then exit 0", async () => {
    const server = await startServer(["--shutdown-timeout", "1s"], { script: FIXTURE });
    const call = post(server.url, slowCall(1, 60_000, "too-slow"));
    await server.waitForLog((l) => l.msg === "test_slow started" && l.tag === "too-slow");
    server.proc.kill("SIGTERM");
    const answer = await call;
    const result = (answer.json as { result: { isError: boolean; _meta: Record<string, unknown> } }).result;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      "Error executing tool test_slow: the server is shutting down; temporary failure, safe to retry",
    );
    expect(result._meta["toolshed.dev/error"]).toMatchObject({ code: "cancelled" });
    expect(await server.exited).toBe(0);
    expect(server.logs().some((l) => l.msg.startsWith("shutdown deadline passed"))).toBe(true);
  });
});
