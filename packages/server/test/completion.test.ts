import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { definePack, defineResourceTemplate } from "@toolshed/schema";
import { captureLogger } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "../src/index.js";
import { notesPack } from "./fixtures.js";
import { docsPack, promptsPack, rawPeer, TICKET_IDS } from "./more-fixtures.js";

let server: ToolshedServer;
let client: Client;
let logs: ReturnType<typeof captureLogger>;

beforeEach(async () => {
  logs = captureLogger(createLogger);
  server = createServer({
    name: "complete",
    version: "1.0.0",
    packs: [notesPack, docsPack, promptsPack],
    logger: logs.logger,
  });
  client = await connectInMemory(server);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

const prompt = (name: string) => ({ type: "ref/prompt" as const, name });
const template = (uri: string) => ({ type: "ref/resource" as const, uri });

describe("completion/complete", () => {
  it("the server declares the completions capability", () => {
    expect(client.getServerCapabilities()?.completions).toEqual({});
  });

  it("completes a prompt argument: values, total, hasMore", async () => {
    expect(await client.complete({ ref: prompt("summarize_note"), argument: { name: "title", value: "g" } })).toEqual({
      completion: { values: ["groceries"], total: 1, hasMore: false },
    });
    expect(await client.complete({ ref: prompt("summarize_note"), argument: { name: "title", value: "" } })).toEqual({
      completion: { values: ["groceries", "todo"], total: 2, hasMore: false },
    });
    expect(await client.complete({ ref: prompt("summarize_note"), argument: { name: "title", value: "z" } })).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
  });

  it("completes a template variable", async () => {
    expect(
      await client.complete({ ref: template("note://{title}"), argument: { name: "title", value: "to" } }),
    ).toEqual({ completion: { values: ["todo"], total: 1, hasMore: false } });
    expect(await client.complete({ ref: template("ticket://{id}"), argument: { name: "id", value: "24" } })).toEqual({
      completion: {
        values: ["240", "241", "242", "243", "244", "245", "246", "247", "248", "249"],
        total: 10,
        hasMore: false,
      },
    });
  });

  it("caps values at 100, with the real total and hasMore", async () => {
    const result = await client.complete({ ref: template("ticket://{id}"), argument: { name: "id", value: "" } });
    expect(result.completion.values).toEqual(TICKET_IDS.slice(0, 100));
    expect(result.completion.total).toBe(150);
    expect(result.completion.hasMore).toBe(true);
  });

  it("passes context.arguments to the completer", async () => {
    const py = await client.complete({
      ref: prompt("review_code"),
      argument: { name: "framework", value: "f" },
      context: { arguments: { language: "py" } },
    });
    expect(py.completion.values).toEqual(["fastapi", "flask"]);
    const ts = await client.complete({
      ref: prompt("review_code"),
      argument: { name: "framework", value: "f" },
      context: { arguments: { language: "ts" } },
    });
    expect(ts.completion.values).toEqual(["fastify"]);
    const none = await client.complete({ ref: prompt("review_code"), argument: { name: "framework", value: "" } });
    expect(none.completion.values).toEqual(["express", "fastify", "hono"]);
  });

  it("an argument without a completer gives empty values", async () => {
    expect(await client.complete({ ref: prompt("review_code"), argument: { name: "depth", value: "b" } })).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
    expect(await client.complete({ ref: prompt("full_prompt"), argument: { name: "anything", value: "" } })).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
  });

  it.each([
    ["constructor", "prompt"],
    ["toString", "prompt"],
    ["hasOwnProperty", "prompt"],
    ["__proto__", "prompt"],
    ["constructor", "template"],
    ["toString", "template"],
    ["hasOwnProperty", "template"],
    ["__proto__", "template"],
  ])("an argument named %s (an Object.prototype member) of a %s has no completer: empty values", async (name, kind) => {
    const ref = kind === "prompt" ? prompt("summarize_note") : template("note://{title}");
    expect(await client.complete({ ref, argument: { name, value: "abc" } })).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
  });

  it("a static resource URI completes to nothing", async () => {
    expect(await client.complete({ ref: template("config://app"), argument: { name: "x", value: "" } })).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
  });

  it("an unknown prompt or template is -32602", async () => {
    const unknownPrompt = (await client
      .complete({ ref: prompt("nope"), argument: { name: "title", value: "" } })
      .catch((e: unknown) => e)) as McpError;
    expect(unknownPrompt).toBeInstanceOf(McpError);
    expect(unknownPrompt.code).toBe(-32602);
    expect(unknownPrompt.message).toBe("MCP error -32602: Unknown prompt: nope");
    const unknownTemplate = (await client
      .complete({ ref: template("nope://{x}"), argument: { name: "x", value: "" } })
      .catch((e: unknown) => e)) as McpError;
    expect(unknownTemplate.code).toBe(-32602);
    expect(unknownTemplate.message).toBe("MCP error -32602: Unknown resource template: nope://{x}");
  });

  it("a malformed request is -32602 with a hint", async () => {
    const raw = await rawPeer(server);
    await raw.send({
      jsonrpc: "2.0",
      id: 1,
      method: "completion/complete",
      params: { ref: { type: "ref/tool", name: "x" }, argument: { name: "a", value: "" } },
    });
    await raw.send({ jsonrpc: "2.0", id: 2, method: "completion/complete", params: { argument: { name: "a" } } });
    await raw.send({
      jsonrpc: "2.0",
      id: 3,
      method: "completion/complete",
      params: { ref: { type: "ref/prompt", name: "summarize_note" }, argument: { name: "title", value: 5 } },
    });
    expect((await raw.response(1)).error).toEqual({
      code: -32602,
      message: "Unknown reference type: ref/tool; use ref/prompt or ref/resource",
    });
    expect((await raw.response(2)).error).toEqual({
      code: -32602,
      message: "Invalid params for completion/complete: params.ref must be {type, name|uri}",
    });
    expect((await raw.response(3)).error).toEqual({
      code: -32602,
      message: "Invalid params for completion/complete: params.argument must be {name, value} with string values",
    });
    await raw.close();
  });

  it("a completer that returns something other than a list is a masked -32603, not a TypeError message", async () => {
    const odd = definePack({
      name: "odd",
      resources: [
        defineResourceTemplate({
          uriTemplate: "odd://{x}",
          name: "odd",
          description: "Completes to nothing useful",
          params: z.object({ x: z.string().describe("Anything") }),
          complete: { x: () => undefined as unknown as string[] },
          read: ({ x }) => x,
        }),
      ],
    });
    const s = createServer({ name: "o", version: "1", packs: [odd], logger: logs.logger });
    const c = await connectInMemory(s);
    const error = (await c
      .complete({ ref: template("odd://{x}"), argument: { name: "x", value: "" } })
      .catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/^MCP error -32603: Internal error \(ref [0-9a-f]{8}\)$/);
    await c.close();
    await s.close();
  });

  it("a completer that throws is masked: -32603 with a ref, logged with the ref", async () => {
    const failing = definePack({
      name: "failing",
      resources: [
        defineResourceTemplate({
          uriTemplate: "f://{x}",
          name: "f",
          description: "Fails to complete",
          params: z.object({ x: z.string().describe("Anything") }),
          complete: {
            x: () => {
              throw new Error("index password hunter2");
            },
          },
          read: ({ x }) => x,
        }),
      ],
    });
    const s = createServer({ name: "f", version: "1", packs: [failing], logger: logs.logger });
    const c = await connectInMemory(s);
    const error = (await c
      .complete({ ref: template("f://{x}"), argument: { name: "x", value: "" } })
      .catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/^MCP error -32603: Internal error \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(error)).not.toContain("hunter2");
    const ref = /ref ([0-9a-f]{8})/.exec(error.message)?.[1];
    expect(JSON.stringify(logs.lines.find((l) => l.ref === ref))).toContain("index password hunter2");
    await c.close();
    await s.close();
  });
});
