import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { CancelledError } from "@toolshed/errors";
import { captureLogger, resultText } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "../src/index.js";
import { miscPack } from "./fixtures.js";
import { ContextProbe, contextPack, META, rawPeer } from "./more-fixtures.js";

let server: ToolshedServer;
let client: Client;
let probe: ContextProbe;
let logs: ReturnType<typeof captureLogger>;

beforeEach(async () => {
  logs = captureLogger(createLogger);
  probe = new ContextProbe();
  server = createServer({ name: "ctx", version: "1.0.0", packs: [miscPack, contextPack(probe)], logger: logs.logger });
  client = await connectInMemory(server);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args })) as CallToolResult;
}

function collectLogs(c: Client) {
  const messages: Array<{ level: string; logger?: string; data: unknown }> = [];
  c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    messages.push({ level: n.params.level, logger: n.params.logger, data: n.params.data });
  });
  return messages;
}

describe("progress", () => {
  it("reaches the client that passes onprogress, in order, with progress, total and message", async () => {
    const seen: Progress[] = [];
    const result = (await client.callTool({ name: "count_up", arguments: { to: 3 } }, undefined, {
      onprogress: (p) => seen.push(p),
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ result: 3 });
    expect(seen).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
  });

  it("is sent with the request's progress token, and not at all without one", async () => {
    const raw = await rawPeer(server);
    await raw.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "count_up", arguments: { to: 2 }, _meta: { progressToken: "tok-1" } },
    });
    await raw.response(1);
    const progress = raw.received.filter((m) => m.method === "notifications/progress").map((m) => m.params);
    expect(progress).toEqual([
      { progressToken: "tok-1", progress: 1, total: 2, message: "step 1" },
      { progressToken: "tok-1", progress: 2, total: 2, message: "step 2" },
    ]);
    await raw.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "count_up", arguments: { to: 2 } } });
    expect((await raw.response(2)).result?.structuredContent).toEqual({ result: 2 });
    expect(raw.received.filter((m) => m.method === "notifications/progress")).toHaveLength(2);
    await raw.close();
  });
});

describe("ctx.log and logging/setLevel", () => {
  it("without a level set, every message reaches the client, named after the tool", async () => {
    const messages = collectLogs(client);
    await call(client, "count_up", { to: 3 });
    expect(messages).toEqual([
      { level: "debug", logger: "count_up", data: { step: 1 } },
      { level: "debug", logger: "count_up", data: { step: 2 } },
      { level: "warning", logger: "count_up", data: { step: 3 } },
    ]);
  });

  it('after setLevel "warning", debug messages are not sent and warning is', async () => {
    const messages = collectLogs(client);
    await client.setLoggingLevel("warning");
    await call(client, "count_up", { to: 3 });
    expect(messages).toEqual([{ level: "warning", logger: "count_up", data: { step: 3 } }]);
  });

  it('after setLevel "error", the warning is not sent either; "debug" lets everything through again', async () => {
    const messages = collectLogs(client);
    await client.setLoggingLevel("error");
    await call(client, "count_up", { to: 2 });
    expect(messages).toEqual([]);
    await client.setLoggingLevel("debug");
    await call(client, "count_up", { to: 2 });
    expect(messages.map((m) => m.level)).toEqual(["debug", "warning"]);
  });

  it("the level is per connection", async () => {
    const other = await connectInMemory(server);
    const mine = collectLogs(client);
    const theirs = collectLogs(other);
    await client.setLoggingLevel("warning");
    await call(client, "count_up", { to: 2 });
    await call(other, "count_up", { to: 2 });
    expect(mine.map((m) => m.level)).toEqual(["warning"]);
    expect(theirs.map((m) => m.level)).toEqual(["debug", "warning"]);
    await other.close();
  });

  it("an invalid level is -32602 listing the valid ones, and the level stays as it was", async () => {
    const messages = collectLogs(client);
    await client.setLoggingLevel("warning");
    const error = (await client.setLoggingLevel("loud" as never).catch((e: unknown) => e)) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(
      "MCP error -32602: Invalid params for logging/setLevel: params.level must be one of debug, info, notice, " +
        "warning, error, critical, alert, emergency",
    );
    await call(client, "count_up", { to: 2 });
    expect(messages.map((m) => m.level)).toEqual(["warning"]);
  });
});

describe("cancellation", () => {
  it("a client abort aborts ctx.signal in the handler with a CancelledError", async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: "wait_for_cancel", arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await probe.started.promise;
    controller.abort("the user pressed stop");
    // The SDK client rejects its own call at once (as -32001 with the reason) and tells the server.
    await expect(pending).rejects.toThrow("MCP error -32001: the user pressed stop");
    const reason = await probe.aborted.promise;
    expect(reason).toBeInstanceOf(CancelledError);
    expect((reason as CancelledError).code).toBe("cancelled");
    expect((reason as CancelledError).message).toBe("the call was cancelled by the client");
  });

  it("notifications/cancelled for the request aborts the handler; other calls go on", async () => {
    const raw = await rawPeer(server);
    await raw.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "wait_for_cancel", arguments: {} } });
    await probe.started.promise;
    await raw.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "stop" } });
    expect(await probe.aborted.promise).toBeInstanceOf(CancelledError);
    await raw.send({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "three", arguments: {} } });
    expect((await raw.response(8)).result?.structuredContent).toEqual({ result: 3 });
    await raw.close();
  });
});

describe("sampling (ctx.createMessage)", () => {
  it("asks the client's model when the client declares sampling and handles sampling/createMessage", async () => {
    const c = await connectInMemory(server, { capabilities: { sampling: {} } });
    const asked: unknown[] = [];
    c.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(request.params);
      const first = request.params.messages[0]?.content as { text?: string };
      return {
        role: "assistant",
        content: { type: "text", text: `echo ${first.text}` },
        model: "test-model",
        stopReason: "endTurn",
      };
    });
    const result = await call(c, "ask_model", { question: "what is 2+2?" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: "test-model: echo what is 2+2?" });
    expect(asked).toEqual([
      { messages: [{ role: "user", content: { type: "text", text: "what is 2+2?" } }], maxTokens: 50 },
    ]);
    await c.close();
  });

  it("is a failed_precondition tool error when the client does not declare sampling", async () => {
    const result = await call(client, "ask_model", { question: "hi" });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      "Error executing tool ask_model: this client does not support sampling, so the tool cannot ask its model",
    );
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "failed_precondition", retryable: false });
  });
});

describe("elicitation (ctx.elicitInput)", () => {
  it("asks the user when the client declares elicitation and handles elicitation/create", async () => {
    const c = await connectInMemory(server, { capabilities: { elicitation: {} } });
    const asked: unknown[] = [];
    c.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { name: "Ada" } };
    });
    const result = await call(c, "ask_user");
    expect(result.structuredContent).toEqual({ result: "hello Ada" });
    expect(asked).toEqual([
      {
        message: "What is your name?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string", description: "Your name" } },
          required: ["name"],
        },
      },
    ]);
    await c.close();
  });

  it("passes a declined answer to the handler", async () => {
    const c = await connectInMemory(server, { capabilities: { elicitation: {} } });
    c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
    expect((await call(c, "ask_user")).structuredContent).toEqual({ result: "no answer (decline)" });
    await c.close();
  });

  it("is a failed_precondition tool error when the client does not declare elicitation", async () => {
    const result = await call(client, "ask_user");
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      "Error executing tool ask_user: this client does not support elicitation, so the tool cannot ask the user",
    );
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "failed_precondition", retryable: false });
  });
});

describe("authInfo", () => {
  it("reaches the handler's context from the transport", async () => {
    const c = await connectInMemory(server, {
      authInfo: { token: "tok-secret", clientId: "client-42", scopes: ["tools:read", "tools:write"] },
    });
    const result = await call(c, "whoami");
    expect(result.structuredContent).toEqual({
      clientId: "client-42",
      scopes: ["tools:read", "tools:write"],
      hasRequestId: true,
    });
    await c.close();
  });

  it("is absent when the transport did not authenticate", async () => {
    expect((await call(client, "whoami")).structuredContent).toEqual({
      clientId: null,
      scopes: [],
      hasRequestId: true,
    });
  });
});
