import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { captureLogger, resultText } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "../src/index.js";
import { miscPack } from "./fixtures.js";
import { ContextProbe, contextPack, LateProbe, latePack, META, rawPeer, sleep } from "./more-fixtures.js";

let server: ToolshedServer;
let client: Client;
let probe: LateProbe;
let logs: ReturnType<typeof captureLogger>;
let unhandled: unknown[];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

const TIMED_OUT = (tool: string) =>
  `Error executing tool ${tool}: timed out after 30 ms; temporary failure, safe to retry`;

beforeEach(async () => {
  unhandled = [];
  process.on("unhandledRejection", onUnhandled);
  logs = captureLogger(createLogger);
  probe = new LateProbe();
  server = createServer({
    name: "late",
    version: "1.0.0",
    packs: [latePack(probe), miscPack, contextPack(new ContextProbe())],
    logger: logs.logger,
  });
  client = await connectInMemory(server);
});

afterEach(async () => {
  process.off("unhandledRejection", onUnhandled);
  await client.close();
  await server.close();
});

describe("timeouts", () => {
  it("a handler that ignores its signal gets one timeout answer; finishing later sends nothing more", async () => {
    const raw = await rawPeer(server);
    let finished = false;
    void probe.finished.promise.then(() => {
      finished = true;
    });
    await raw.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ignores_signal", arguments: {} } });
    const answer = await raw.response(1);
    // Answered at the timeout, before the handler got to its end.
    expect(finished).toBe(false);
    const result = answer.result as CallToolResult;
    expect(resultText(result)).toBe(TIMED_OUT("ignores_signal"));
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "timeout", retryable: true });
    expect(await probe.finished.promise).toBe("finished");
    await sleep(30);
    expect(raw.responsesTo(1)).toHaveLength(1);
    expect(JSON.stringify(raw.received)).not.toContain("late value");
    expect(unhandled).toEqual([]);
    await raw.close();
  });

  it("a handler that throws after its timeout: one answer, no unhandled rejection, no leak", async () => {
    const raw = await rawPeer(server);
    await raw.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "throws_late", arguments: {} } });
    const result = (await raw.response(1)).result as CallToolResult;
    expect(resultText(result)).toBe(TIMED_OUT("throws_late"));
    expect(await probe.threw.promise).toBe("threw");
    await sleep(30);
    expect(raw.responsesTo(1)).toHaveLength(1);
    expect(JSON.stringify(raw.received)).not.toContain("hunter2");
    expect(unhandled).toEqual([]);
    await raw.close();
  });

  it("a handler that rejects with its signal's reason is the same retryable timeout", async () => {
    const result = (await client.callTool({ name: "rejects_with_reason", arguments: {} })) as CallToolResult;
    expect(resultText(result)).toBe(TIMED_OUT("rejects_with_reason"));
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "timeout", retryable: true });
    expect(unhandled).toEqual([]);
  });

  it("a handler that resolves when aborted still gets the timeout answer, not its value", async () => {
    const result = (await client.callTool({ name: "slow", arguments: {} })) as CallToolResult;
    expect(resultText(result)).toBe(
      "Error executing tool slow: timed out after 50 ms; temporary failure, safe to retry",
    );
    expect(result.structuredContent).toBeUndefined();
  });

  it("the server goes on answering while late handlers finish", async () => {
    const late = client.callTool({ name: "ignores_signal", arguments: {} });
    const three = (await client.callTool({ name: "three", arguments: {} })) as CallToolResult;
    expect(three.structuredContent).toEqual({ result: 3 });
    expect(resultText((await late) as CallToolResult)).toBe(TIMED_OUT("ignores_signal"));
    await probe.finished.promise;
    expect(unhandled).toEqual([]);
  });

  it("the call's outcome is logged as a timeout", async () => {
    await client.callTool({ name: "ignores_signal", arguments: {} });
    expect(logs.lines.find((l) => l.tool === "ignores_signal" && l.msg === "tool call")).toMatchObject({
      outcome: "timeout",
      code: "timeout",
    });
  });

  it("the server-wide timeout applies to tools without their own; 0 turns it off", async () => {
    const limited = createServer({
      name: "t30",
      version: "1",
      packs: [latePack(new LateProbe())],
      timeoutMs: 30,
      logger: logs.logger,
    });
    const c1 = await connectInMemory(limited);
    const cut = (await c1.callTool({ name: "sleep_ms", arguments: { ms: 80 } })) as CallToolResult;
    expect(resultText(cut)).toBe(TIMED_OUT("sleep_ms"));
    const off = createServer({
      name: "t0",
      version: "1",
      packs: [latePack(new LateProbe())],
      timeoutMs: 0,
      logger: logs.logger,
    });
    const c2 = await connectInMemory(off);
    const full = (await c2.callTool({ name: "sleep_ms", arguments: { ms: 80 } })) as CallToolResult;
    expect(full.structuredContent).toEqual({ result: "slept 80 ms" });
    await sleep(60);
    expect(unhandled).toEqual([]);
    for (const closable of [c1, c2, limited, off]) await closable.close();
  });
});
