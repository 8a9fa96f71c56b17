// The contract (shared/CONTRACT.md, C1-C14) as each official client sees it: the SDK 1.x client
// (2025-11-25) and the SDK 2.x client pinned to 2026-07-28, over a real stdio process and real HTTP.
import { errorMeta, resultText } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Connection, READER_TOKEN, TARGETS, type Target, wireError } from "./support/contract-targets.js";

describe.each(TARGETS)("contract through the $name", (target: Target) => {
  let c: Connection;
  beforeAll(async () => {
    c = await target.connect();
  });
  afterAll(async () => {
    await c?.close();
  });

  it("C1: object output is structuredContent and the same value as 2-space JSON text", async () => {
    const r = await c.call("get_note", { title: "groceries" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(r.content).toEqual([
      { type: "text", text: JSON.stringify({ title: "groceries", body: "milk, eggs", words: 2 }, null, 2) },
    ]);
  });

  it("C2: a number is wrapped as {result}, with its own text", async () => {
    const tools = await c.listTools();
    expect(tools.find((t) => t.name === "three")).toMatchObject({
      outputSchema: { type: "object", properties: { result: { type: "number" } }, required: ["result"] },
    });
    const r = await c.call("three");
    expect(r.structuredContent).toEqual({ result: 3 });
    expect(r.content).toEqual([{ type: "text", text: "3" }]);
  });

  it("C3: output that breaks its schema is a masked fault, never sent", async () => {
    const r = await c.call("bad_output");
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(resultText(r)).toMatch(/^Error executing tool bad_output \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(r)).not.toContain("many");
  });

  it("C4: a full result with an image and a resource link passes through", async () => {
    const r = await c.call("picture");
    expect(r.content).toEqual([
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "resource_link", uri: "note://groceries", name: "groceries" },
    ]);
  });

  it("C5: the published schema is the Zod one, portable; object-level rules run", async () => {
    const tools = await c.listTools();
    expect(tools.find((t) => t.name === "search_tickets")?.inputSchema).toEqual({
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
    expect(JSON.stringify(tools)).not.toContain("$schema");
    const bad = await c.call("crm_search_accounts", { query: "Acme", min_arr: 100, max_arr: 5 });
    expect(resultText(bad)).toBe(
      "Invalid arguments for tool crm_search_accounts:\nmax_arr: must be greater than or equal to min_arr",
    );
  });

  it("C6: invalid arguments are one hint per problem, not retryable", async () => {
    const r = await c.call("search_tickets", { query: "x", status: "pending", limit: 999 });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toBe(
      [
        "Invalid arguments for tool search_tickets:",
        'status: must be one of "open", "closed", "any" (got "pending")',
        "limit: must be at most 50 (got 999)",
      ].join("\n"),
    );
    expect(errorMeta(r)).toMatchObject({ kind: "validation", code: "invalid_arguments", retryable: false });
    expect(r.structuredContent).toBeUndefined();
  });

  it("C7: an unexpected exception is masked behind a reference", async () => {
    const r = await c.call("leaky");
    expect(resultText(r)).toMatch(/^Error executing tool leaky \(ref [0-9a-f]{8}\)$/);
    for (const secret of ["hunter2", "/srv/app", "secret.ts"]) expect(JSON.stringify(r)).not.toContain(secret);
    const meta = errorMeta(r) as { ref: string };
    expect(meta).toEqual({ kind: "internal", code: "internal_error", retryable: false, ref: meta.ref });
  });

  it("C8/C9: a tool error reaches the model with its class", async () => {
    const r = await c.call("get_note", { title: "nope" });
    expect(resultText(r)).toBe("Error executing tool get_note: No note 'nope'. Known titles: groceries, todo");
    expect(errorMeta(r)).toEqual({ kind: "tool", code: "not_found", retryable: false });
    const t = await c.call("backend_timeout");
    expect(resultText(t)).toBe(
      "Error executing tool backend_timeout: the CRM did not answer within 5 s; temporary failure, safe to retry",
    );
    expect(errorMeta(t)).toEqual({ kind: "tool", code: "timeout", retryable: true });
  });

  it("C10: HTTP 503 upstream is retryable with its Retry-After; 418 is masked", async () => {
    const r = await c.call("upstream", { status: 503 });
    expect(errorMeta(r)).toMatchObject({ code: "unavailable", retryable: true, retryAfterMs: 3000 });
    expect(JSON.stringify(r)).not.toContain("secret-token-xyz");
    const teapot = await c.call("upstream", { status: 418 });
    expect(resultText(teapot)).toMatch(/^Error executing tool upstream \(ref [0-9a-f]{8}\)$/);
  });

  it("C11: partial success lists every failure and is not an error", async () => {
    const r = await c.call("crm_bulk_update_tier", { account_ids: ["acc_1", "acc_9", "acc_3"], new_tier: "growth" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({
      succeeded_count: 1,
      failed_count: 2,
      succeeded: ["acc_1"],
      failed: [
        { id: "acc_9", reason: "not_found", message: "No account 'acc_9'", retryable: false },
        { id: "acc_3", reason: "failed_precondition", message: "Account 'acc_3' is archived", retryable: false },
      ],
    });
  });

  it("C12: an unknown tool is -32602 naming it; a missing resource is this era's code", async () => {
    const unknown = wireError(await c.call("nope_tool").catch((e: unknown) => e));
    expect(unknown).toMatchObject({
      code: -32602,
      message: "Unknown tool: nope_tool. Closest tools: ask_model, count_up, echo_text",
    });
    const missing = wireError(await c.readResource("wiki://x").catch((e: unknown) => e));
    if (target.era === "modern") expect(missing).toMatchObject({ code: -32602, data: { uri: "wiki://x" } });
    else expect(missing.code).toBe(-32002);
    expect(missing.message).toMatch(/^Resource not found: wiki:\/\/x\. Known resources: note:\/\/\{title\}/);
  });

  it("C14: annotations are published as given", async () => {
    const tools = await c.listTools();
    expect(tools.find((t) => t.name === "search_tickets")?.annotations).toEqual({
      readOnlyHint: true,
      title: "Search tickets",
    });
  });

  it("C14: a read-only server publishes and accepts only read-only tools", async () => {
    const ro = await target.connect({ readOnly: true });
    try {
      const names = (await ro.listTools()).map((t) => t.name).sort();
      expect(names).toEqual(["crm_get_account", "crm_search_accounts", "get_note", "search_tickets", "three"]);
      const denied = await ro.call("crm_bulk_update_tier", { account_ids: ["acc_1"], new_tier: "growth" });
      expect(resultText(denied)).toMatch(/^Error executing tool crm_bulk_update_tier: this server is read-only;/);
      expect(errorMeta(denied)).toEqual({ kind: "tool", code: "permission_denied", retryable: false });
    } finally {
      await ro.close();
    }
  });

  it("one handler asks the user and the model in either era (2025: a request on the connection; 2026: input_required and a retry)", async () => {
    const asking = await target.connect({ answers: { name: "Ada", model: "test-model", text: "42" } });
    try {
      const user = await asking.call("ask_user");
      const model = await asking.call("ask_model", { question: "6 x 7?" });
      if (target.era === "legacy" && target.transport === "http") {
        // Stateless 2025 HTTP has no channel back to the client: a clear tool error, not a hang.
        expect(resultText(user)).toMatch(/runs without sessions, so the tool cannot ask the user/);
        expect(errorMeta(model)).toMatchObject({ code: "failed_precondition", retryable: false });
      } else {
        expect(user.structuredContent).toEqual({ result: "hello Ada" });
        expect(model.structuredContent).toEqual({ result: "test-model: 42" });
      }
    } finally {
      await asking.close();
    }
  });

  it("a client without the capability gets a clear answer, not a hang", async () => {
    const r = await c.call("ask_user").catch((e: unknown) => wireError(e));
    if (target.era === "modern")
      expect(r).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    else expect(resultText(r)).toMatch(/cannot ask the user/);
  });

  // Tokens are an HTTP matter: stdio has no credentials, so there is nothing to run there.
  const httpOnly = target.transport === "http" ? it : () => {};
  httpOnly("C14: a read-scope token sees and calls only read-only tools", async () => {
    const reader = await target.connect({ token: READER_TOKEN });
    try {
      expect((await reader.listTools()).map((t) => t.name)).not.toContain("crm_bulk_update_tier");
      const denied = await reader.call("echo_text", { text: "x" });
      expect(resultText(denied)).toMatch(/your credentials allow read-only tools only/);
    } finally {
      await reader.close();
    }
  });
});
