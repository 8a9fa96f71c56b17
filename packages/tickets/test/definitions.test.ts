import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./helpers.js";

let h: Harness;
let tools: Tool[];

beforeAll(async () => {
  h = await startHarness();
  ({ tools } = await h.client.listTools());
});
afterAll(async () => {
  await h.close();
});

function tool(name: string): Tool {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

describe("published definitions", () => {
  it("lists exactly the six tickets tools", () => {
    expect(tools.map((t) => t.name)).toEqual([
      "search_tickets",
      "get_ticket",
      "create_ticket",
      "update_ticket_status",
      "bulk_update_ticket_status",
      "add_ticket_comment",
    ]);
  });

  it("publishes search_tickets as the seed lesson defines it, with the query bounded", () => {
    const search = tool("search_tickets");
    expect(search.title).toBe("Search tickets");
    expect(search.description).toBe("Search support tickets. Use before creating a ticket to avoid duplicates.");
    expect(search.inputSchema).toEqual({
      type: "object",
      properties: {
        query: {
          type: "string",
          maxLength: 200,
          description: "Words to match in title or body, at most 200 characters",
        },
        status: {
          type: "string",
          enum: ["open", "closed", "any"],
          default: "open",
          description: 'Which tickets to match: "open" (default), "closed" or "any"',
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 50,
          default: 10,
          description: "Most tickets to return, 1-50 (default 10)",
        },
      },
      required: ["query"],
      additionalProperties: false,
    });
    expect(search.annotations).toEqual({ title: "Search tickets", readOnlyHint: true, openWorldHint: false });
  });

  it("C2: search_tickets publishes its array output wrapped as {result}", () => {
    const output = tool("search_tickets").outputSchema as unknown as {
      properties: { result: { type: string; items: unknown } };
    };
    expect(output).toMatchObject({ type: "object", required: ["result"] });
    expect(output.properties.result.type).toBe("array");
    expect(output.properties.result.items).toMatchObject({
      type: "object",
      required: ["id", "title", "status", "priority", "updated_at", "snippet"],
    });
  });

  it("C13: every tool and every input property has a description", () => {
    for (const t of tools) {
      expect(t.description, t.name).toMatch(/\S/);
      for (const [key, prop] of Object.entries(t.inputSchema.properties ?? {})) {
        expect((prop as { description?: string }).description, `${t.name}.${key}`).toMatch(/\S{3}/);
      }
    }
  });

  it("C14: annotations tell the truth about each tool", () => {
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(hints).toEqual({
      search_tickets: { title: "Search tickets", readOnlyHint: true, openWorldHint: false },
      get_ticket: { title: "Get ticket", readOnlyHint: true, openWorldHint: false },
      create_ticket: {
        title: "Create ticket",
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
      update_ticket_status: {
        title: "Update ticket status",
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
      bulk_update_ticket_status: {
        title: "Close or reopen several tickets",
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
      add_ticket_comment: {
        title: "Add ticket comment",
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    });
  });

  it("publishes ticket ids with their pattern and bounded idempotency keys", () => {
    for (const name of ["get_ticket", "update_ticket_status", "add_ticket_comment"]) {
      expect((tool(name).inputSchema.properties as Record<string, unknown>).id).toMatchObject({
        type: "string",
        pattern: "^T-[1-9][0-9]{0,8}$",
      });
    }
    for (const name of ["create_ticket", "add_ticket_comment"]) {
      expect((tool(name).inputSchema.properties as Record<string, unknown>).idempotency_key).toMatchObject({
        type: "string",
        minLength: 1,
        maxLength: 128,
      });
      expect(tool(name).inputSchema.required).not.toContain("idempotency_key");
    }
  });
});
