import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { errorMeta, resultText } from "@toolshed/test-support";
import { describe, expect, it } from "vitest";

// Runs each runnable docs/examples file and checks what its comments say a client sees.
const load = async (name: string) =>
  (await import(/* @vite-ignore */ new URL(`../../docs/examples/${name}`, import.meta.url).pathname)) as Record<
    string,
    unknown
  >;
const REF = "[0-9a-f]{8}";

describe("docs/examples", () => {
  it("getting-started.ts", async () => {
    const { note, missing, forgot } = await load("getting-started.ts");
    expect((note as CallToolResult).structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(resultText(missing)).toBe("Error executing tool get_note: No note 'nope'. Known titles: groceries, todo");
    expect((missing as CallToolResult).isError).toBe(true);
    expect(resultText(forgot)).toBe("Invalid arguments for tool get_note:\ntitle: is required (a string)");
  });

  it("errors.ts", async () => {
    const ex = await load("errors.ts");
    expect(resultText(ex.invalid)).toBe(
      'Invalid arguments for tool crm_get_account:\nsource: must be one of "db", "upstream", "flaky" (got "cache")',
    );
    expect(resultText(ex.notFound)).toBe(
      "Error executing tool crm_get_account: No account 'acc_9'. Known ids: acc_1, acc_2",
    );
    expect(errorMeta(ex.notFound)).toEqual({ kind: "tool", code: "not_found", retryable: false });
    expect(resultText(ex.retryable)).toBe(
      "Error executing tool crm_get_account: Account 'acc_2' is being restored; temporary failure, safe to retry",
    );
    expect(resultText(ex.masked)).toMatch(new RegExp(`^Error executing tool crm_get_account \\(ref (${REF})\\)$`));
    expect(JSON.stringify(ex.masked)).not.toContain("hunter2");
    const ref = (errorMeta(ex.masked) as { ref: string }).ref;
    const logged = (ex.serverLog as Array<{ ref?: string; err?: unknown }>).find((line) => line.ref === ref);
    expect(String(logged?.err)).toContain("password=hunter2");
    expect(resultText(ex.reset)).toMatch(
      new RegExp(
        `^Error executing tool crm_get_account: a service this tool depends on could not be reached \\(ref ${REF}\\); temporary failure, safe to retry$`,
      ),
    );
    expect(errorMeta(ex.reset)).toMatchObject({ code: "unavailable", retryable: true });
    expect((ex.partial as CallToolResult).isError).toBe(false);
    expect(resultText(ex.partial).split("\n")[0]).toBe("1 of 3 items succeeded, 2 failed.");
    expect((ex.partial as CallToolResult).structuredContent).toMatchObject({
      succeeded_count: 1,
      failed_count: 2,
      succeeded: ["acc_1"],
      failed: [
        { id: "acc_2", reason: "archived" },
        { id: "acc_9", reason: "not_found" },
      ],
    });
    expect(ex.unknownTool).toMatchObject({
      code: -32602,
      message:
        "MCP error -32602: Unknown tool: crm_delete_account. Closest tools: crm_get_account, crm_bulk_update_tier",
    });
  });

  it("schemas-json.ts", async () => {
    const ex = await load("schemas-json.ts");
    const tool = ex.addContact as { inputSchema: unknown; schemaKind: string };
    expect(tool.schemaKind).toBe("json-schema");
    expect(tool.inputSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      anyOf: [{ required: ["email"] }, { required: ["phone"] }],
      additionalProperties: false,
    });
    expect(ex.missing).toEqual({
      success: false,
      issues: [
        { path: "", message: "needs one of these arguments: email, phone" },
        {
          path: "emial",
          message: 'unknown argument; did you mean "email"? Valid arguments: name, email, phone',
        },
      ],
    });
    const prompt = ex.planTrip as { arguments: unknown; schemaKind: string };
    expect(prompt.schemaKind).toBe("json-schema");
    expect(prompt.arguments).toEqual([
      { name: "city", description: "Where to", required: true },
      { name: "days", description: "How many days, 1 to 14", required: false },
    ]);
    expect(ex.tooLong).toEqual({ success: false, issues: [{ path: "days", message: "must be at most 14 (got 40)" }] });
  });

  it("schemas.ts", async () => {
    const ex = await load("schemas.ts");
    expect(ex.published).toEqual({
      type: "object",
      properties: {
        query: { type: "string", description: "Words to match in title or body" },
        status: {
          type: "string",
          enum: ["open", "closed", "any"],
          default: "open",
          description: "Ticket status to match",
        },
        limit: { type: "integer", minimum: 1, maximum: 50, default: 10, description: "Most tickets to return" },
      },
      required: ["query"],
      additionalProperties: false,
    });
    expect(ex.filled).toEqual({ success: true, data: { query: "login", status: "open", limit: 10 } });
    expect(ex.typo).toEqual({
      success: false,
      issues: [
        { path: "qeury", message: 'unknown argument; did you mean "query"? Valid arguments: query, status, limit' },
        { path: "query", message: "is required (a string)" },
      ],
    });
    expect(ex.nulls).toEqual({ success: true, data: { query: "login", status: "open", limit: 10 } });
    expect(ex.requiredNull).toEqual({
      success: false,
      issues: [{ path: "query", message: "is required and must be a string (got null)" }],
    });
    expect(ex.range).toEqual({
      success: false,
      issues: [{ path: "max_arr", message: "must be greater than or equal to min_arr" }],
    });
    expect(ex.needsResolution).toEqual({
      success: false,
      issues: [{ path: "resolution", message: 'is required when status is "closed"' }],
    });
    expect(ex.badName).toMatch(/^Tool "search tickets": .*\[C13\]$/);
    expect(ex.undescribed).toMatch(/^Tool "get_ticket": .*"id".*\[C13\]$/);
  });

  it("structured-output.ts", async () => {
    const ex = await load("structured-output.ts");
    const listed = ex.listed as Array<{ name: string; outputSchema?: unknown }>;
    expect(listed.find((t) => t.name === "count_notes")?.outputSchema).toMatchObject({
      type: "object",
      properties: { result: { type: "integer" } },
      required: ["result"],
    });
    expect((ex.note as CallToolResult).structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(resultText(ex.note)).toBe('{\n  "title": "groceries",\n  "body": "milk, eggs",\n  "words": 2\n}');
    expect((ex.count as CallToolResult).structuredContent).toEqual({ result: 3 });
    expect(resultText(ex.count)).toBe("3");
    expect(resultText(ex.broken)).toMatch(new RegExp(`^Error executing tool broken_note \\(ref ${REF}\\)$`));
    // The bad value (title: 42) never reaches the client; the random ref may contain "42" itself.
    const broken = ex.broken as CallToolResult;
    expect(broken.structuredContent).toBeUndefined();
    expect(JSON.stringify([broken.content, broken._meta])).not.toMatch(/title|\b42\b/);
    const image = ex.image as CallToolResult;
    expect(image.content.map((c) => c.type)).toEqual(["image", "resource_link"]);
    expect(image.structuredContent).toEqual({ weeks: 4 });
  });

  it("read-only.ts", async () => {
    const ex = await load("read-only.ts");
    expect(ex.listed).toEqual([
      { name: "list_notes", annotations: { title: "List notes", readOnlyHint: true, openWorldHint: false } },
    ]);
    expect(errorMeta(ex.refused)).toMatchObject({ code: "permission_denied" });
    expect(resultText(ex.refused)).toBe(
      "Error executing tool delete_note: this server is read-only; delete_note changes data. Read-only tools: list_notes",
    );
  });

  it("pack-notes.ts", async () => {
    const ex = await load("pack-notes.ts");
    expect((ex.created as CallToolResult).structuredContent).toMatchObject({
      title: "shopping list",
      body: "bread",
      tags: ["home"],
      words: 1,
      version: 1,
    });
    expect(errorMeta(ex.stale)).toMatchObject({ code: "conflict" });
    expect(resultText(ex.stale)).toMatch(
      /^Error executing tool update_note: Note 'shopping list' is at version 1, not 7: .*retry with expected_version 1$/,
    );
    expect(ex.resource).toEqual({
      contents: [{ uri: "note://groceries", mimeType: "text/markdown", text: "milk, eggs" }],
    });
    const message = (ex.prompt as { messages: Array<{ role: string; content: { text: string } }> }).messages;
    expect(message).toHaveLength(1);
    expect(message[0]?.role).toBe("user");
    expect(message[0]?.content.text).toContain("```text\nmilk, eggs\n```");
  });

  it("pack-tickets.ts", async () => {
    const ex = await load("pack-tickets.ts");
    expect(resultText(ex.badId)).toBe(
      'Invalid arguments for tool get_ticket:\nid: must be a ticket id such as "T-1001" (got "1001")',
    );
    expect((ex.closed as CallToolResult).structuredContent).toMatchObject({
      id: "T-1001",
      status: "closed",
      previous_status: "open",
      changed: true,
    });
    const resource = (ex.resource as { contents: Array<{ text: string; mimeType: string }> }).contents[0];
    expect(resource?.mimeType).toBe("text/markdown");
    expect(resource?.text).toContain("- Resolution: Reset links now last 24 hours");
    const prompt = (ex.prompt as { messages: Array<{ content: { text: string } }> }).messages[0]?.content.text;
    expect(prompt).toContain("search_tickets");
    expect(ex.unknown).toMatchObject({ code: -32002 });
    expect(String((ex.unknown as Error).message)).toMatch(/No ticket 'T-9999'\. Closest ids: /);
  });

  it("pack-crm.ts", async () => {
    const ex = await load("pack-crm.ts");
    expect(errorMeta(ex.timedOut)).toMatchObject({ code: "timeout", retryable: true });
    expect(resultText(ex.timedOut)).toMatch(
      /the CRM store did not answer within 200 ms; temporary failure, safe to retry$/,
    );
    expect((ex.allFailed as CallToolResult).isError).toBe(true);
    expect((ex.allFailed as CallToolResult).structuredContent).toMatchObject({
      succeeded_count: 0,
      failed_count: 1,
      failed: [{ id: "acc_9999", reason: "not_found", retryable: false }],
    });
    const resource = (ex.resource as { contents: Array<{ text: string; mimeType: string }> }).contents[0];
    expect(resource?.mimeType).toBe("application/json");
    expect(JSON.parse(resource?.text ?? "{}")).toMatchObject({ id: "acc_1005", name: "Hooli" });
    const prompt = (ex.prompt as { messages: Array<{ content: { text: string } }> }).messages[0]?.content.text;
    expect(prompt).toContain("Hooli (acc_1005)");
  });

  it("resources-prompts.ts", async () => {
    const ex = await load("resources-prompts.ts");
    expect((ex.listed as { resources: Array<{ uri: string }> }).resources.map((r) => r.uri)).toEqual([
      "recipes://index",
      "recipe://pancakes",
      "recipe://omelette",
    ]);
    expect(ex.index).toEqual({
      contents: [{ uri: "recipes://index", mimeType: "text/plain", text: "pancakes\nomelette" }],
    });
    expect(ex.pancakes).toEqual({
      contents: [{ uri: "recipe://pancakes", mimeType: "text/plain", text: "flour, milk, eggs" }],
    });
    expect((ex.completed as { completion: { values: string[] } }).completion.values).toEqual(["omelette"]);
    const messages = (ex.prompt as { messages: Array<{ role: string; content: { text: string } }> }).messages;
    expect(messages).toEqual([
      {
        role: "user",
        content: {
          type: "text",
          text: "Write a shopping list for pancakes for 4 people. Ingredients for two: flour, milk, eggs.",
        },
      },
    ]);
    expect(ex.tooMany).toMatchObject({ code: -32602 });
    expect((ex.tooMany as Error).message).toBe(
      "MCP error -32602: Invalid arguments for prompt shopping_list:\nservings: must be at most 12 (got 40)",
    );
    expect(ex.missing).toMatchObject({ code: -32002 });
    expect(String((ex.missing as Error).message)).toContain("No recipe 'waffles'. Known titles: pancakes, omelette");
    // attachPack on a plain SDK 1.x McpServer serves the same resources and prompts.
    expect(ex.viaSdk).toEqual({
      contents: [{ uri: "recipe://omelette", mimeType: "text/plain", text: "eggs, butter" }],
    });
    const sdkPrompt = (ex.promptViaSdk as { messages: Array<{ content: { text: string } }> }).messages[0];
    expect(sdkPrompt?.content.text).toBe(
      "Write a shopping list for omelette for 2 people. Ingredients for two: eggs, butter.",
    );
  });

  it("http-server.ts", async () => {
    const ex = await load("http-server.ts");
    expect(ex.status).toBe(401);
    expect(ex.challenge).toMatch(
      /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource"$/,
    );
    expect([...(ex.tools as string[])].sort()).toEqual(["get_note", "list_notes", "search_notes"]);
    expect((ex.note as CallToolResult).structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
  });
});
