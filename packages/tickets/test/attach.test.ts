import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { attachPack } from "@toolshed/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteTicketsStore, ticketsPack } from "../src/index.js";
import { call, captureLogger, errorMeta, manualClock, tempDir, text } from "./helpers.js";

let store: SqliteTicketsStore;
let mcpServer: McpServer;
let client: Client;
let cleanup: () => void;

beforeEach(async () => {
  const dir = tempDir();
  cleanup = dir.cleanup;
  store = SqliteTicketsStore.open(join(dir.dir, "tickets.db"), { now: manualClock().now });
  mcpServer = new McpServer({ name: "plain-sdk-server", version: "1.0.0" });
  attachPack(mcpServer, ticketsPack({ store }), { logger: captureLogger().logger });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcpServer.connect(serverTransport);
  client = new Client({ name: "attach-test", version: "1.0.0" });
  await client.connect(clientTransport);
});
afterEach(async () => {
  await client.close();
  await mcpServer.close();
  await store.close();
  cleanup();
});

describe("the pack on a plain SDK McpServer (attachPack)", () => {
  it("lists the six tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "add_ticket_comment",
      "bulk_update_ticket_status",
      "create_ticket",
      "get_ticket",
      "search_tickets",
      "update_ticket_status",
    ]);
  });

  it("runs every tool", async () => {
    const created = await call(client, "create_ticket", { title: "Login fails", body: "Password rejected." });
    expect(created.structuredContent).toMatchObject({ id: "T-1001", status: "open", priority: "normal", similar: [] });

    const found = await call(client, "search_tickets", { query: "password" });
    expect(found.structuredContent).toEqual({
      result: [
        {
          id: "T-1001",
          title: "Login fails",
          status: "open",
          priority: "normal",
          updated_at: "2025-03-01T09:00:00.000Z",
          snippet: "**Password** rejected.",
        },
      ],
    });

    const commented = await call(client, "add_ticket_comment", { id: "T-1001", body: "Looking." });
    expect(commented.structuredContent).toMatchObject({ ticket_id: "T-1001", comment_count: 1 });

    const closed = await call(client, "update_ticket_status", { id: "T-1001", status: "closed", resolution: "Fixed" });
    expect(closed.structuredContent).toMatchObject({ status: "closed", resolution: "Fixed", changed: true });

    const got = await call(client, "get_ticket", { id: "T-1001" });
    expect(got.structuredContent).toMatchObject({
      id: "T-1001",
      status: "closed",
      comment_count: 1,
      comments: [{ body: "Looking." }],
    });
  });

  it("keeps tool errors as hints with their class (C8, C9)", async () => {
    await store.createTicket({ title: "One", body: "b", priority: "low" });
    const missing = await call(client, "get_ticket", { id: "T-1002" });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toBe("Error executing tool get_ticket: No ticket 'T-1002'. Closest ids: T-1001");
    expect(errorMeta(missing)).toEqual({ kind: "tool", code: "not_found", retryable: false });
    const unresolved = await call(client, "update_ticket_status", { id: "T-1001", status: "closed" });
    expect(unresolved.isError).toBe(true);
    // On a plain McpServer too, the refine's problem is a C6 hint with its class.
    expect(text(unresolved)).toBe(
      'Invalid arguments for tool update_ticket_status:\nresolution: is required when status is "closed"',
    );
    expect(errorMeta(unresolved)).toMatchObject({ kind: "validation", code: "invalid_arguments" });
  });

  it("serves the ticket resource, its completion and the triage prompt", async () => {
    await store.createTicket({ title: "Export slow", body: "50k rows.", priority: "high" });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["ticket://T-1001"]);
    const { contents } = await client.readResource({ uri: "ticket://T-1001" });
    expect((contents[0] as { text: string }).text.startsWith("# T-1001: Export slow\n")).toBe(true);
    const { completion } = await client.complete({
      ref: { type: "ref/resource", uri: "ticket://{id}" },
      argument: { name: "id", value: "T-100" },
    });
    expect(completion.values).toEqual(["T-1001"]);
    const prompt = await client.getPrompt({ name: "triage_ticket", arguments: { id: "T-1001" } });
    expect(prompt.messages[0]?.content).toMatchObject({
      type: "text",
      text: expect.stringContaining('# T-1001: "Export slow"'),
    });
  });
});
