import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { captureLogger } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "../src/index.js";
import { notesPack } from "./fixtures.js";
import { promptsPack, rawPeer } from "./more-fixtures.js";

let server: ToolshedServer;
let client: Client;
let logs: ReturnType<typeof captureLogger>;

beforeEach(async () => {
  logs = captureLogger(createLogger);
  server = createServer({ name: "prompts", version: "1.0.0", packs: [notesPack, promptsPack], logger: logs.logger });
  client = await connectInMemory(server);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

async function getError(name: string, args?: Record<string, string>): Promise<McpError> {
  const error = await client.getPrompt({ name, ...(args ? { arguments: args } : {}) }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("prompts/list", () => {
  it("lists every prompt with its arguments {name, description, required}", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      {
        name: "summarize_note",
        description: "Ask the model to summarize one note",
        arguments: [{ name: "title", description: "Title of the note to summarize", required: true }],
      },
      {
        name: "review_code",
        title: "Review code",
        description: "Ask the model to review code in one language and framework",
        arguments: [
          { name: "language", description: "Language of the code", required: true },
          { name: "framework", description: "Framework the code uses", required: true },
          { name: "depth", description: "How deep to go: brief or thorough", required: false },
        ],
      },
      { name: "full_prompt", description: "Renders a complete prompts/get result", arguments: [] },
      { name: "broken_prompt", description: "Fails with an unexpected exception", arguments: [] },
    ]);
    expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: false });
  });
});

describe("prompts/get", () => {
  it("a string render is one user text message, with the prompt's description", async () => {
    expect(await client.getPrompt({ name: "summarize_note", arguments: { title: "groceries" } })).toEqual({
      description: "Ask the model to summarize one note",
      messages: [{ role: "user", content: { type: "text", text: "Summarize the note 'groceries':\n\nmilk, eggs" } }],
    });
  });

  it("a messages render is sent as those messages, in order; optional arguments may be left out", async () => {
    expect(await client.getPrompt({ name: "review_code", arguments: { language: "ts", framework: "hono" } })).toEqual({
      description: "Ask the model to review code in one language and framework",
      messages: [
        { role: "assistant", content: { type: "text", text: "I review ts code that uses hono." } },
        { role: "user", content: { type: "text", text: "Review this code (brief)." } },
      ],
    });
    const thorough = await client.getPrompt({
      name: "review_code",
      arguments: { language: "py", framework: "flask", depth: "thorough" },
    });
    expect(thorough.messages[1]).toEqual({
      role: "user",
      content: { type: "text", text: "Review this code (thorough)." },
    });
  });

  it("a full result is sent as it is", async () => {
    expect(await client.getPrompt({ name: "full_prompt" })).toEqual({
      description: "A custom description",
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
    });
  });

  it("invalid arguments are -32602 'Invalid arguments for prompt <name>:' with one hint per problem", async () => {
    const error = await getError("review_code", { language: "rust", framework: "x" });
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(
      [
        "MCP error -32602: Invalid arguments for prompt review_code:",
        'language: must be one of "ts", "py" (got "rust")',
        "framework: must be at least 2 characters (got 1)",
      ].join("\n"),
    );
  });

  it("missing and unknown arguments are hints too", async () => {
    const error = await getError("summarize_note", { titel: "groceries" });
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(
      [
        "MCP error -32602: Invalid arguments for prompt summarize_note:",
        'titel: unknown argument; did you mean "title"? Valid arguments: title',
        "title: is required (a string)",
      ].join("\n"),
    );
    const none = await getError("summarize_note");
    expect(none.message).toBe(
      "MCP error -32602: Invalid arguments for prompt summarize_note:\ntitle: is required (a string)",
    );
  });

  it("an unknown prompt is -32602 naming the known prompts", async () => {
    const error = await getError("x");
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(
      "MCP error -32602: Unknown prompt: x. Known prompts: summarize_note, review_code, full_prompt, broken_prompt",
    );
  });

  it("a render that throws is masked: -32603 with a ref, the secret only in the log", async () => {
    const error = await getError("broken_prompt");
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/^MCP error -32603: Internal error \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(error)).not.toContain("hunter2");
    const ref = /ref ([0-9a-f]{8})/.exec(error.message)?.[1];
    expect(JSON.stringify(logs.lines.find((l) => l.ref === ref))).toContain("prompt store password hunter2");
  });

  it("malformed prompts/get params are -32602 hints", async () => {
    const raw = await rawPeer(server);
    await raw.send({ jsonrpc: "2.0", id: 1, method: "prompts/get", params: { arguments: {} } });
    await raw.send({
      jsonrpc: "2.0",
      id: 2,
      method: "prompts/get",
      params: { name: "summarize_note", arguments: "x" },
    });
    expect((await raw.response(1)).error).toEqual({
      code: -32602,
      message: "Invalid params for prompts/get: params.name must be the prompt name (a non-empty string)",
    });
    expect((await raw.response(2)).error).toEqual({
      code: -32602,
      message: "Invalid params for prompts/get: params.arguments must be an object of named values (got string)",
    });
    await raw.close();
  });
});
