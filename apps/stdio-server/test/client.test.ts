import { existsSync } from "node:fs";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, cleanup, connectClient, tempDir } from "./helpers.js";
import { ALL_TOOLS, CRM_TOOLS, NOTES_TOOLS, READ_ONLY_TOOLS, TICKETS_TOOLS } from "./tools.js";

afterEach(cleanup);

const demoArgs = () => ["--db", tempDir().file("toolshed.db"), "--demo"];

async function toolNames(args: string[], env?: Record<string, string>) {
  const { client } = await connectClient(args, env);
  return (await client.listTools()).tools.map((t) => t.name);
}

describe("toolshed-stdio with the SDK Client over stdio", () => {
  it("tools/list shows every pack's tools", async () => {
    expect(await toolNames(demoArgs())).toEqual(ALL_TOOLS);
  });

  it("initialize names the server toolshed with the package version", async () => {
    const { client } = await connectClient(demoArgs());
    expect(client.getServerVersion()).toEqual({ name: "toolshed", version: "0.1.0" });
  });

  it("get_note groceries after --demo gives the demo note", async () => {
    const { client } = await connectClient(demoArgs());
    const result = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(result.content).toEqual([
      { type: "text", text: JSON.stringify({ title: "groceries", body: "milk, eggs", words: 2 }, null, 2) },
    ]);
  });

  it("C6: invalid arguments are a tool error with one hint per problem", async () => {
    const { client } = await connectClient(demoArgs());
    const result = await client.callTool({ name: "search_notes", arguments: { query: "milk", limit: 999 } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: "text", text: "Invalid arguments for tool search_notes:\nlimit: must be at most 50 (got 999)" },
    ]);
    expect(result._meta?.["toolshed.dev/error"]).toMatchObject({
      kind: "validation",
      code: "invalid_arguments",
      retryable: false,
    });
  });

  it("C8: a note that does not exist is a tool error that says what would work", async () => {
    const { client } = await connectClient(demoArgs());
    const result = await client.callTool({ name: "get_note", arguments: { title: "nope" } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: "text",
        text: "Error executing tool get_note: No note 'nope', and no title is close; find notes with search_notes or list_notes",
      },
    ]);
    expect(result._meta?.["toolshed.dev/error"]).toEqual({ kind: "tool", code: "not_found", retryable: false });
  });

  it("C12: an unknown tool is JSON-RPC error -32602, and the server keeps serving", async () => {
    const { client } = await connectClient(demoArgs());
    const error = await client.callTool({ name: "no_such_tool", arguments: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toBe(
      "MCP error -32602: Unknown tool: no_such_tool. Closest tools: search_notes, create_note, delete_note",
    );
    const again = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(again.structuredContent).toMatchObject({ title: "groceries" });
  });

  it("a note created in one session is there in the next one (same --db)", async () => {
    const db = join(tempDir().dir, "nested", "folder", "toolshed.db");
    const first = await connectClient(["--db", db]);
    const created = await first.client.callTool({ name: "create_note", arguments: { title: "kept", body: "a b c" } });
    expect(created.isError).toBeUndefined();
    await first.client.close();
    expect(existsSync(db)).toBe(true);
    const second = await connectClient(["--db", db]);
    const got = await second.client.callTool({ name: "get_note", arguments: { title: "kept" } });
    expect(got.structuredContent).toEqual({ title: "kept", body: "a b c", words: 3 });
  });

  it("--read-only lists only read-only tools and refuses the others", async () => {
    const { client } = await connectClient([...demoArgs(), "--read-only"]);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(READ_ONLY_TOOLS);
    const result = await client.callTool({ name: "create_note", arguments: { title: "x", body: "y" } });
    expect(result.isError).toBe(true);
    expect(result._meta?.["toolshed.dev/error"]).toMatchObject({ kind: "tool", code: "permission_denied" });
  });

  it("--packs notes lists only the notes tools", async () => {
    expect(await toolNames([...demoArgs(), "--packs", "notes"])).toEqual(NOTES_TOOLS);
  });

  it("--packs takes several packs, in any case and with spaces, listed in the order given", async () => {
    expect(await toolNames([...demoArgs(), "--packs", "CRM, tickets"])).toEqual([...CRM_TOOLS, ...TICKETS_TOOLS]);
  });
});

describe("environment variables", () => {
  it("TOOLSHED_PACKS=crm serves only the CRM tools", async () => {
    expect(await toolNames(demoArgs(), cleanEnv({ TOOLSHED_PACKS: "crm" }))).toEqual(CRM_TOOLS);
  });

  it("a flag wins over its variable", async () => {
    expect(await toolNames([...demoArgs(), "--packs", "tickets"], cleanEnv({ TOOLSHED_PACKS: "crm" }))).toEqual(
      TICKETS_TOOLS,
    );
  });

  it("TOOLSHED_DB, TOOLSHED_DEMO=1 and TOOLSHED_READ_ONLY=true work without flags", async () => {
    const db = join(tempDir().dir, "from-env", "t.db");
    const env = cleanEnv({ TOOLSHED_DB: db, TOOLSHED_DEMO: "1", TOOLSHED_READ_ONLY: "true" });
    const { client } = await connectClient([], env);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(READ_ONLY_TOOLS);
    const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(note.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(existsSync(db)).toBe(true);
  });

  it("without --db or TOOLSHED_DB the database is ~/.toolshed/toolshed.db", async () => {
    const env = cleanEnv();
    const { client } = await connectClient([], env);
    expect((await client.listTools()).tools).toHaveLength(ALL_TOOLS.length);
    expect(existsSync(join(env.HOME ?? "", ".toolshed", "toolshed.db"))).toBe(true);
  });

  it("TOOLSHED_LOG_LEVEL=silent writes no log line", async () => {
    const { client, stderr } = await connectClient(demoArgs(), cleanEnv({ TOOLSHED_LOG_LEVEL: "silent" }));
    await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    await client.close();
    expect(stderr()).toBe("");
  });
});
