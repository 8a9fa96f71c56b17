import { definePack, defineTool } from "@toolshed/schema";
import { createServer } from "@toolshed/server";
import { Cancellation } from "@toolshed/server/internal";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createDispatcher } from "./dispatcher.js";

const echo = defineTool({
  name: "echo",
  description: "Echoes.",
  input: z.object({ text: z.string().describe("Text") }),
  output: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  handler: ({ text }) => ({ text }),
});

function setup() {
  const errors: Array<Record<string, unknown>> = [];
  const logger = { error: (o: object) => errors.push(o as Record<string, unknown>), warn() {}, info() {}, debug() {} };
  const server = createServer({
    name: "t",
    version: "1.0.0",
    instructions: "Use echo.",
    packs: [definePack({ name: "p", tools: [echo] })],
    logger,
  });
  const reply = createDispatcher(server.core);
  const dispatch = async (...args: Parameters<typeof reply>) => (await reply(...args))?.answer;
  return { server, dispatch, reply, errors };
}

const ctx = { cancel: new Cancellation(), headers: { get: () => null } };

describe("stateless dispatcher", () => {
  it("announces instructions and only the capabilities it has (no resources, prompts, completions)", async () => {
    const { dispatch } = setup();
    const answer = await dispatch(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      },
      ctx,
    );
    expect(answer).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2024-11-05",
        capabilities: { tools: { listChanged: false }, logging: {} },
        serverInfo: { name: "t", version: "1.0.0" },
        instructions: "Use echo.",
      },
    });
    for (const method of ["resources/list", "prompts/list", "completion/complete"]) {
      expect(await dispatch({ jsonrpc: "2.0", id: 2, method }, ctx)).toEqual({
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32601, message: "Method not found" },
      });
    }
  });

  it("answers -32602 hints for initialize and logging/setLevel params", async () => {
    const { dispatch } = setup();
    expect(await dispatch({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }, ctx)).toMatchObject({
      error: {
        code: -32602,
        message: "Invalid params for initialize: params.protocolVersion must be a string such as 2025-11-25",
      },
    });
    expect(
      await dispatch({ jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "loud" } }, ctx),
    ).toMatchObject({
      error: {
        code: -32602,
        message:
          "Invalid params for logging/setLevel: params.level must be one of debug, info, notice, warning, error, critical, alert, emergency",
      },
    });
  });

  it("masks an unexpected failure as -32603 with a reference that is logged with the error", async () => {
    const { server, dispatch, errors } = setup();
    server.runtime.listTools = () => {
      throw new Error("secret connection string");
    };
    const answer = await dispatch({ jsonrpc: "2.0", id: 7, method: "tools/list" }, ctx);
    const message = (answer as { error: { code: number; message: string } }).error.message;
    expect((answer as { error: { code: number } }).error.code).toBe(-32603);
    expect(message).toMatch(/^Internal error \(ref [0-9a-f]+\)$/);
    expect(message).not.toContain("secret");
    expect(errors[0]?.ref).toBe(/ref ([0-9a-f]+)/.exec(message)?.[1]);
  });

  it("gives each answer its HTTP status: 2025 always 200, 2026-07-28 errors by class", async () => {
    const { reply } = setup();
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const call = (id: number, method: string, params?: Record<string, unknown>) =>
      reply({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }, ctx);
    expect((await call(1, "nope/nope"))?.status).toBe(200);
    expect((await call(2, "nope/nope", { _meta: meta }))?.status).toBe(404);
    const badEnvelope = await call(3, "tools/list", {
      _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
    });
    expect(badEnvelope).toMatchObject({ status: 400, answer: { error: { code: -32602 } } });
    const unknownTool = await call(4, "tools/call", { name: "nope", arguments: {}, _meta: meta });
    expect(unknownTool).toMatchObject({ status: 200, answer: { error: { code: -32602 } } });
    expect(await call(5, "tools/list", { _meta: meta })).toMatchObject({
      status: 200,
      answer: { result: { tools: [{ name: "echo" }] } },
    });
  });

  it("gives notifications and client responses no answer", async () => {
    const { dispatch } = setup();
    expect(await dispatch({ jsonrpc: "2.0", method: "notifications/initialized" }, ctx)).toBeUndefined();
    expect(await dispatch({ jsonrpc: "2.0", id: 3, result: {} }, ctx)).toBeUndefined();
  });
});
