import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Harness, rpcError, startHarness } from "./helpers.js";

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.store.createTicket({ title: "Export times out", body: "CSV export of 50k tasks fails.", priority: "high" });
  h.clock.advance(60);
  await h.store.addComment("T-1001", "Reproduced on staging.");
  h.clock.advance(60);
  await h.store.createTicket({ title: "Typo in welcome email", body: "'Welcom'", priority: "low" });
  await h.store.updateTicketStatus("T-1002", { status: "closed", resolution: "Fixed the template." });
});
afterEach(async () => {
  await h.close();
});

describe("ticket:// resources", () => {
  it("publishes the ticket://{id} template", async () => {
    const { resourceTemplates } = await h.client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      {
        uriTemplate: "ticket://{id}",
        name: "ticket",
        title: "Support ticket",
        description: "A support ticket and its latest comments as markdown, addressed by id such as ticket://T-1001",
        mimeType: "text/markdown",
      },
    ]);
  });

  it("lists tickets, most recently updated first", async () => {
    const { resources } = await h.client.listResources();
    expect(resources).toEqual([
      {
        uri: "ticket://T-1002",
        name: "T-1002",
        title: "T-1002: Typo in welcome email",
        description: "closed, low priority, updated 2025-03-01T09:02:00.000Z",
        mimeType: "text/markdown",
      },
      {
        uri: "ticket://T-1001",
        name: "T-1001",
        title: "T-1001: Export times out",
        description: "open, high priority, updated 2025-03-01T09:01:00.000Z",
        mimeType: "text/markdown",
      },
    ]);
  });

  it("keeps the list bounded to the 50 most recently updated", async () => {
    for (let i = 0; i < 55; i++) {
      h.clock.advance(1);
      await h.store.createTicket({ title: `Bulk ${i}`, body: "b", priority: "normal" });
    }
    const { resources } = await h.client.listResources();
    expect(resources).toHaveLength(50);
    expect(resources[0]?.uri).toBe("ticket://T-1057");
    expect(resources[49]?.uri).toBe("ticket://T-1008");
  });

  it("reads a ticket as markdown with its comments", async () => {
    const { contents } = await h.client.readResource({ uri: "ticket://T-1001" });
    expect(contents).toEqual([
      {
        uri: "ticket://T-1001",
        mimeType: "text/markdown",
        text: [
          "# T-1001: Export times out",
          "",
          "- Status: open",
          "- Priority: high",
          "- Created: 2025-03-01T09:00:00.000Z",
          "- Updated: 2025-03-01T09:01:00.000Z",
          "",
          "CSV export of 50k tasks fails.",
          "",
          "## Comments (1)",
          "",
          "### Comment 1 (2025-03-01T09:01:00.000Z)",
          "",
          "Reproduced on staging.",
          "",
        ].join("\n"),
      },
    ]);
  });

  it("shows the resolution of a closed ticket and says when there are no comments", async () => {
    const { contents } = await h.client.readResource({ uri: "ticket://T-1002" });
    const markdown = (contents[0] as { text: string }).text;
    expect(markdown).toContain("- Status: closed\n");
    expect(markdown).toContain("- Resolution: Fixed the template.\n");
    expect(markdown.endsWith("## Comments (0)\n\nNo comments yet.\n")).toBe(true);
  });

  it("says how many comments it leaves out", async () => {
    for (let i = 0; i < 101; i++) await h.store.addComment("T-1002", `c${i}`);
    const { contents } = await h.client.readResource({ uri: "ticket://T-1002" });
    const markdown = (contents[0] as { text: string }).text;
    expect(markdown).toContain("## Comments (101)\n\nShowing the latest 100 of 101 comments.\n");
    expect(markdown).not.toContain("\nc0\n");
    expect(markdown).toContain("\nc100\n");
  });

  it("answers an unknown ticket with the closest ids, and a malformed id with a hint", async () => {
    const missing = await rpcError(h.client.readResource({ uri: "ticket://T-1003" }));
    expect(missing.code).toBe(-32002);
    expect(missing.message).toBe("MCP error -32002: No ticket 'T-1003'. Closest ids: T-1001, T-1002");
    expect(missing.data).toEqual({ "toolshed.dev/error": { kind: "tool", code: "not_found", retryable: false } });
    const malformed = await rpcError(h.client.readResource({ uri: "ticket://1001" }));
    expect(malformed.code).toBe(-32602);
    expect(malformed.message).toBe(
      'MCP error -32602: Invalid resource URI ticket://1001:\nid: must be a ticket id such as "T-1001" (got "1001")',
    );
  });

  it("completes ticket ids in the template", async () => {
    for (let i = 0; i < 10; i++) await h.store.createTicket({ title: `More ${i}`, body: "b", priority: "low" });
    const { completion } = await h.client.complete({
      ref: { type: "ref/resource", uri: "ticket://{id}" },
      argument: { name: "id", value: "T-101" },
    });
    expect(completion).toEqual({ values: ["T-1010", "T-1011", "T-1012"], total: 3, hasMore: false });
    const none = await h.client.complete({
      ref: { type: "ref/resource", uri: "ticket://{id}" },
      argument: { name: "id", value: "T-9" },
    });
    expect(none.completion.values).toEqual([]);
    const recent = await h.client.complete({
      ref: { type: "ref/resource", uri: "ticket://{id}" },
      argument: { name: "id", value: "" },
    });
    expect(recent.completion.values).toHaveLength(12);
    expect(recent.completion.values[0]).toBe("T-1012");
  });
});
