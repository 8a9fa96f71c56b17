import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { attachPack } from "@toolshed/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { notesPack } from "../src/pack.js";
import { SqliteNotesStore } from "../src/sqlite/store.js";
import { captureLogger, errorMeta, steppingClock, tempDir, text } from "./helpers.js";

let store: SqliteNotesStore;
let client: Client;
let mcpServer: McpServer;
let tmp: ReturnType<typeof tempDir>;

beforeEach(async () => {
  tmp = tempDir();
  store = SqliteNotesStore.open(`${tmp.dir}/notes.db`, { now: steppingClock() });
  await store.createNote({ title: "groceries", body: "milk, eggs", tags: ["home"] }); // 09:00
  mcpServer = new McpServer({ name: "plain", version: "1.0.0" });
  attachPack(mcpServer, notesPack({ store }), { logger: captureLogger().logger });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcpServer.connect(serverTransport);
  client = new Client({ name: "attach-test", version: "0.0.0" });
  await client.connect(clientTransport);
});

afterEach(async () => {
  await client.close();
  await mcpServer.close();
  await store.close();
  tmp.cleanup();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe("attachPack on a plain McpServer", () => {
  it("lists the six tools", async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      "get_note",
      "search_notes",
      "list_notes",
      "create_note",
      "update_note",
      "delete_note",
    ]);
  });

  it("every tool works end to end", async () => {
    expect((await call("get_note", { title: "groceries" })).structuredContent).toEqual({
      title: "groceries",
      body: "milk, eggs",
      words: 2,
    });
    expect(
      (await call("create_note", { title: "todo", body: "call mom", idempotency_key: "k" })).structuredContent,
    ).toEqual({
      title: "todo",
      body: "call mom",
      tags: [],
      words: 2,
      version: 1,
      created_at: "2025-03-01T09:01:00.000Z",
      updated_at: "2025-03-01T09:01:00.000Z",
    });
    expect((await call("search_notes", { query: "eggs" })).structuredContent).toEqual({
      result: [{ title: "groceries", snippet: "milk, **eggs**", updated_at: "2025-03-01T09:00:00.000Z" }],
    });
    expect((await call("list_notes", { limit: 1 })).structuredContent).toMatchObject({
      notes: [{ title: "groceries", tags: ["home"], updated_at: "2025-03-01T09:00:00.000Z" }],
      next_cursor: expect.any(String),
    });
    expect(
      (await call("update_note", { title: "todo", tags: ["Family"], expected_version: 1 })).structuredContent,
    ).toMatchObject({
      tags: ["family"],
      version: 2,
    });
    expect((await call("delete_note", { title: "todo" })).structuredContent).toEqual({ deleted: true });
    expect((await call("delete_note", { title: "todo" })).structuredContent).toEqual({ deleted: false });
  });

  it("tool errors keep their text and class", async () => {
    const missing = await call("get_note", { title: "nope" });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toBe("Error executing tool get_note: No note 'nope'. Known titles: groceries");
    expect(errorMeta(missing)).toEqual({ kind: "tool", code: "not_found", retryable: false });
    const duplicate = await call("create_note", { title: "groceries", body: "x" });
    expect(text(duplicate)).toBe(
      "Error executing tool create_note: A note titled 'groceries' already exists; use update_note to change it",
    );
  });

  it("the SDK validates input with the pack's Zod schemas, refinements included", async () => {
    const result = await call("update_note", { title: "groceries" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("give body, tags or both; update_note needs something to change");
    expect(await store.getNote("groceries")).toMatchObject({ version: 1 });
  });

  it("the resource and the prompt work", async () => {
    expect((await client.readResource({ uri: "note://groceries" })).contents).toEqual([
      { uri: "note://groceries", mimeType: "text/markdown", text: "milk, eggs" },
    ]);
    const rendered = await client.getPrompt({ name: "summarize_note", arguments: { title: "groceries" } });
    expect(rendered.messages).toEqual([
      { role: "user", content: { type: "text", text: expect.stringContaining("```text\nmilk, eggs\n```") } },
    ]);
    expect(
      (
        await client.complete({
          ref: { type: "ref/prompt", name: "summarize_note" },
          argument: { name: "title", value: "g" },
        })
      ).completion.values,
    ).toEqual(["groceries"]);
  });
});
