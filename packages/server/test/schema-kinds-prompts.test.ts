// Prompts and resource templates written as JSON Schema documents and with ArkType, served to a
// real SDK client (createServer in the 2025 era, and attached to the SDK's own McpServer) and as raw
// 2026-07-28 requests: arguments are listed from the schema and checked with the C6 texts.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { definePack, definePrompt, defineResourceTemplate, jsonSchema } from "@toolshed/schema";
import { type } from "arktype";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachPack, connectInMemory, createServer, type ToolshedServer } from "../src/index.js";
import { rawConnection } from "./raw.js";

const review = definePrompt({
  name: "review_code",
  description: "Asks for a review of a change",
  args: jsonSchema<{ language: "ts" | "py"; focus?: string }>({
    type: "object",
    properties: {
      language: { type: "string", enum: ["ts", "py"], description: "Language of the change: ts or py" },
      focus: { type: "string", maxLength: 40, description: "What to look at first, at most 40 characters" },
    },
    required: ["language"],
    additionalProperties: false,
  }),
  complete: { language: (value) => ["ts", "py"].filter((l) => l.startsWith(value)) },
  render: ({ language, focus }) => `Review this ${language} change${focus ? `, ${focus} first` : ""}.`,
});

const greet = definePrompt({
  name: "greet",
  description: "Greets someone",
  args: type({ who: type("string > 0").describe("a non-empty name") }),
  render: ({ who }) => `Hello, ${who}!`,
});

const invoice = defineResourceTemplate({
  uriTemplate: "invoice://{year}/{number}",
  name: "invoice",
  description: "One invoice by year and number",
  params: {
    type: "object",
    properties: {
      year: { type: "string", pattern: "^20\\d{2}$", description: "Four-digit year, 2000 to 2099" },
      number: { type: "string", pattern: "^\\d{1,6}$", description: "Invoice number, 1 to 6 digits" },
    },
    required: ["year", "number"],
    additionalProperties: false,
  },
  read: (params) => `invoice ${params.year}-${params.number}`,
});

const pack = definePack({ name: "kinds", prompts: [review, greet], resources: [invoice] });

const BAD_REVIEW = ["Invalid arguments for prompt review_code:", 'language: must be one of "ts", "py" (got "rust")'];
const BAD_INVOICE = ["Invalid resource URI invoice://1999/12:", 'year: must match the pattern ^20\\d{2}$ (got "1999")'];

async function linked(server: McpServer): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "kinds-test", version: "0.0.0" });
  await client.connect(clientTransport);
  return client;
}

describe.each([
  [
    "createServer",
    async () => {
      const server: ToolshedServer = createServer({ name: "kinds", version: "1.0.0", packs: [pack] });
      const client = await connectInMemory(server);
      return { client, close: () => server.close() };
    },
  ],
  [
    "attachPack on the SDK's McpServer",
    async () => {
      const mcp = new McpServer({ name: "plain", version: "1.0.0" });
      attachPack(mcp, pack);
      const client = await linked(mcp);
      return { client, close: () => mcp.close() };
    },
  ],
])("JSON Schema and ArkType prompts and templates, %s (2025 era)", (_how, start) => {
  let client: Client;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ client, close } = await start());
  });
  afterAll(async () => {
    await client.close();
    await close();
  });

  it("lists each argument with its description and whether it is required", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.find((p) => p.name === "review_code")?.arguments).toEqual([
      { name: "language", description: "Language of the change: ts or py", required: true },
      { name: "focus", description: "What to look at first, at most 40 characters", required: false },
    ]);
    expect(prompts.find((p) => p.name === "greet")?.arguments).toEqual([
      { name: "who", description: "a non-empty name", required: true },
    ]);
  });

  it("renders with valid arguments and answers invalid ones with the C6 text", async () => {
    const ok = await client.getPrompt({ name: "review_code", arguments: { language: "ts", focus: "tests" } });
    expect(ok.messages[0]?.content).toEqual({ type: "text", text: "Review this ts change, tests first." });
    await expect(client.getPrompt({ name: "review_code", arguments: { language: "rust" } })).rejects.toThrow(
      BAD_REVIEW.join("\n"),
    );
    const hello = await client.getPrompt({ name: "greet", arguments: { who: "Ada" } });
    expect(hello.messages[0]?.content).toEqual({ type: "text", text: "Hello, Ada!" });
    await expect(client.getPrompt({ name: "greet", arguments: { who: "" } })).rejects.toThrow(
      "who: must be a non-empty name",
    );
  });

  it("completes an argument of a JSON Schema prompt", async () => {
    const done = await client.complete({
      ref: { type: "ref/prompt", name: "review_code" },
      argument: { name: "language", value: "p" },
    });
    expect(done.completion.values).toEqual(["py"]);
  });

  it("reads a template's resource and checks its variables", async () => {
    const read = await client.readResource({ uri: "invoice://2026/42" });
    expect(read.contents[0]).toMatchObject({ uri: "invoice://2026/42", text: "invoice 2026-42" });
    await expect(client.readResource({ uri: "invoice://1999/12" })).rejects.toThrow(BAD_INVOICE.join("\n"));
  });
});

describe("the same prompts and templates in the 2026-07-28 era", () => {
  it("lists and checks them alike", async () => {
    const server = createServer({ name: "kinds", version: "1.0.0", packs: [pack] });
    const raw = await rawConnection(server);
    const _meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const list = await raw.request("prompts/list", { _meta });
    const prompts = list.result?.prompts as Array<{ name: string; arguments: unknown }>;
    expect(prompts.find((p) => p.name === "review_code")?.arguments).toEqual([
      { name: "language", description: "Language of the change: ts or py", required: true },
      { name: "focus", description: "What to look at first, at most 40 characters", required: false },
    ]);
    const bad = await raw.request("prompts/get", { _meta, name: "review_code", arguments: { language: "rust" } });
    expect(bad.error).toMatchObject({ code: -32602, message: BAD_REVIEW.join("\n") });
    const read = await raw.request("resources/read", { _meta, uri: "invoice://1999/12" });
    expect(read.error).toMatchObject({ code: -32602, message: BAD_INVOICE.join("\n") });
    const ok = await raw.request("resources/read", { _meta, uri: "invoice://2026/7" });
    expect(ok.result).toMatchObject({ contents: [{ uri: "invoice://2026/7", text: "invoice 2026-7" }] });
    await raw.close();
    await server.close();
  });
});
