// Per-tool authorization over HTTP, in both protocol eras and both modes: lists show each caller
// what it may use, hidden definitions do not exist for it, and a visible one it lacks a scope for
// is the spec's step-up challenge (403 insufficient_scope naming the scopes).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { definePack, definePrompt, defineResource, defineTool } from "@toolshed/schema";
import { connect, legacyInitialize, MODERN_VERSION, modernPost, post, silentLogger } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpApp, type HttpApp } from "../src/index.js";

const tool = (name: string, extra: { requiredScopes?: string[]; readOnly?: boolean } = {}) =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    input: z.object({}),
    output: z.object({ done: z.string() }),
    annotations: { readOnlyHint: extra.readOnly ?? true },
    ...(extra.requiredScopes ? { requiredScopes: extra.requiredScopes } : {}),
    handler: () => ({ done: name }),
  });

const notes = definePack({
  name: "notes",
  tools: [tool("list_notes"), tool("purge_notes", { requiredScopes: ["notes:admin"], readOnly: false })],
  resources: [
    defineResource({
      uri: "notes://audit",
      name: "audit",
      description: "The audit log.",
      mimeType: "text/plain",
      requiredScopes: ["notes:audit"],
      read: () => "nothing happened",
    }),
  ],
  prompts: [
    definePrompt({
      name: "summarize",
      description: "Summarizes the notes.",
      args: z.object({}),
      requiredScopes: ["notes:admin"],
      render: () => "Summarize the notes.",
    }),
  ],
});
// Everything in this pack needs billing:read; tenant rules hide it from one client altogether.
const billing = definePack({ name: "billing", requiredScopes: ["billing:read"], tools: [tool("invoices")] });

const TOKENS = {
  reader: { id: "reader", token: "reader-token-0123456789", scopes: ["tools:read"] },
  writer: { id: "writer", token: "writer-token-0123456789", scopes: ["tools:read", "tools:write"] },
  admin: {
    id: "admin",
    token: "admin-token-0123456789a",
    scopes: ["tools:read", "tools:write", "notes:admin", "notes:audit", "billing:read"],
  },
  outsider: { id: "outsider", token: "outsider-token-012345", scopes: ["tools:read", "billing:read"] },
};

const servers: Server[] = [];
const apps: HttpApp[] = [];
/** An app on a free port; `asked` hears each tool access check as "client tool". */
async function serve(sessions: boolean, asked?: string[]): Promise<string> {
  const http = createHttpApp({
    packs: [notes, billing],
    logger: silentLogger,
    sessions,
    tokens: Object.values(TOKENS),
    canAccess: (auth, target) => {
      if (target.kind === "tool") asked?.push(`${auth?.clientId} ${target.name}`);
      return !(target.pack.name === "billing" && auth?.clientId === "outsider");
    },
  });
  const server = createServer(http.nodeListener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apps.push(http);
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

let stateless: string;
let sessions: string;
beforeAll(async () => {
  [stateless, sessions] = await Promise.all([serve(false), serve(true)]);
});
afterAll(async () => {
  for (const s of servers) s.close();
  await Promise.all(apps.map((a) => a.close({ graceMs: 0 })));
});

const bearer = (who: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[who].token}` });

describe.each([
  ["stateless", () => stateless],
  ["sessions", () => sessions],
])("2025 era, %s, with the SDK client", (_mode, url) => {
  async function as(who: keyof typeof TOKENS) {
    const { client } = await connect(url(), { token: TOKENS[who].token });
    return client;
  }

  it("lists each caller only the tools, resources and prompts it may use", async () => {
    const seen: Record<string, unknown> = {};
    for (const who of ["reader", "admin", "outsider"] as const) {
      const client = await as(who);
      seen[who] = {
        tools: (await client.listTools()).tools.map((t) => t.name).sort(),
        resources: (await client.listResources()).resources.map((r) => r.uri),
        prompts: (await client.listPrompts()).prompts.map((p) => p.name),
      };
      await client.close();
    }
    expect(seen).toEqual({
      reader: { tools: ["list_notes"], resources: [], prompts: [] },
      admin: {
        tools: ["invoices", "list_notes", "purge_notes"],
        resources: ["notes://audit"],
        prompts: ["summarize"],
      },
      // billing:read, but the tenant rule hides the billing pack from this client.
      outsider: { tools: ["list_notes"], resources: [], prompts: [] },
    });
  });

  it("a call the caller may make works; a hidden tool is unknown, with no hint of it", async () => {
    const client = await as("outsider");
    expect((await client.callTool({ name: "list_notes", arguments: {} })).structuredContent).toEqual({
      done: "list_notes",
    });
    await expect(client.callTool({ name: "invoices", arguments: {} })).rejects.toThrow(
      /Unknown tool: invoices\. Closest tools: list_notes$/,
    );
    await client.close();
  });
});

describe.each([
  ["stateless", () => stateless],
  ["sessions", () => sessions],
])("the step-up challenge, %s", (mode, url) => {
  async function sessionHeaders(who: keyof typeof TOKENS): Promise<Record<string, string>> {
    if (mode === "stateless") return bearer(who);
    const init = await post(url(), legacyInitialize(0, "2025-11-25"), bearer(who));
    expect(init.status).toBe(200);
    return {
      ...bearer(who),
      "mcp-session-id": init.headers.get("mcp-session-id") as string,
      "mcp-protocol-version": "2025-11-25",
    };
  }

  it("a 2025 tools/call without the tool's scope is 403 insufficient_scope naming the scope", async () => {
    const headers = await sessionHeaders("writer");
    const res = await post(
      url(),
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "purge_notes", arguments: {} } },
      headers,
    );
    expect(res.status).toBe(403);
    const base = new URL(url()).origin;
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource", error="insufficient_scope", error_description="Forbidden: tools/call purge_notes needs the scope notes:admin (this token has tools:read tools:write); ask the authorization server for a token with notes:admin", scope="notes:admin"`,
    );
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32003,
        message:
          "Forbidden: tools/call purge_notes needs the scope notes:admin (this token has tools:read tools:write); ask the authorization server for a token with notes:admin",
        data: { requiredScopes: ["notes:admin"], missingScopes: ["notes:admin"] },
      },
    });
  });

  it("resources/read and prompts/get are challenged the same way; the admin gets them", async () => {
    const writer = await sessionHeaders("writer");
    const read = await post(
      url(),
      { jsonrpc: "2.0", id: 8, method: "resources/read", params: { uri: "notes://audit" } },
      writer,
    );
    expect(read.status).toBe(403);
    expect(read.headers.get("www-authenticate")).toContain('scope="notes:audit"');
    const prompt = await post(
      url(),
      { jsonrpc: "2.0", id: 9, method: "prompts/get", params: { name: "summarize" } },
      writer,
    );
    expect(prompt.status).toBe(403);
    expect(prompt.headers.get("www-authenticate")).toContain('scope="notes:admin"');

    const admin = await sessionHeaders("admin");
    const ok = await post(
      url(),
      { jsonrpc: "2.0", id: 10, method: "resources/read", params: { uri: "notes://audit" } },
      admin,
    );
    expect(ok.status).toBe(200);
    const text = ok.json ?? ok.text;
    expect(JSON.stringify(text)).toContain("nothing happened");
  });
});

describe("2026-07-28, stateless", () => {
  it("lists are filtered per caller and marked private", async () => {
    const reader = await modernPost(stateless, 1, "tools/list", {}, bearer("reader"));
    const admin = await modernPost(stateless, 2, "tools/list", {}, bearer("admin"));
    const names = (res: { json: unknown }) =>
      (res.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name).sort();
    expect(names(reader)).toEqual(["list_notes"]);
    expect(names(admin)).toEqual(["invoices", "list_notes", "purge_notes"]);
    expect((reader.json as { result: { cacheScope: string } }).result.cacheScope).toBe("private");
  });

  it("a call without the scope is 403 with the challenge; a hidden one is unknown", async () => {
    const denied = await modernPost(
      stateless,
      3,
      "tools/call",
      { name: "purge_notes", arguments: {} },
      bearer("writer"),
    );
    expect(denied.status).toBe(403);
    expect(denied.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(denied.headers.get("www-authenticate")).toContain('scope="notes:admin"');
    expect((denied.json as { error: { code: number } }).error.code).toBe(-32003);

    const hidden = await modernPost(
      stateless,
      4,
      "tools/call",
      { name: "invoices", arguments: {} },
      bearer("outsider"),
    );
    expect(hidden.json).toMatchObject({
      id: 4,
      error: { code: -32602, message: "Unknown tool: invoices. Closest tools: list_notes" },
    });
    expect(hidden.headers.get("www-authenticate")).toBeNull();
    expect(hidden.headers.get("mcp-protocol-version") ?? MODERN_VERSION).toBe(MODERN_VERSION);
  });

  it("a batch is answered message by message: the one lacking a scope gets -32003, the rest run", async () => {
    const res = await post(
      stateless,
      [
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_notes", arguments: {} } },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "purge_notes", arguments: {} } },
      ],
      bearer("writer"),
    );
    expect(res.status).toBe(200);
    const answers = res.json as { id: number; result?: unknown; error?: { code: number } }[];
    expect(answers.map((a) => [a.id, a.error?.code ?? "ok"])).toEqual([
      [1, "ok"],
      [2, -32003],
    ]);
  });
});

describe("the protected resource metadata", () => {
  it("publishes scopes_supported derived from the definitions and packs", async () => {
    const res = await fetch(new URL("/.well-known/oauth-protected-resource/mcp", stateless));
    expect(res.status).toBe(200);
    const metadata = (await res.json()) as { scopes_supported: string[]; resource: string };
    expect(metadata.resource).toBe(stateless);
    expect([...metadata.scopes_supported].sort()).toEqual([
      "billing:read",
      "notes:admin",
      "notes:audit",
      "tools:read",
      "tools:write",
    ]);
  });
});

describe("one access check per call", () => {
  it("canAccess runs once for a stateless tools/call in either era: the 403 check's answer reaches the call", async () => {
    const asked: string[] = [];
    const url = await serve(false, asked);
    const legacy = await post(
      url,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_notes", arguments: {} } },
      bearer("admin"),
    );
    expect(legacy.json).toMatchObject({ result: { structuredContent: { done: "list_notes" } } });
    expect(asked).toEqual(["admin list_notes"]);
    const modern = await modernPost(url, 2, "tools/call", { name: "invoices", arguments: {} }, bearer("admin"));
    expect(modern.json).toMatchObject({ result: { structuredContent: { done: "invoices" } } });
    expect(asked).toEqual(["admin list_notes", "admin invoices"]);
    // Hidden from the outsider: still unknown to it when the core reuses the check.
    const hidden = await modernPost(url, 3, "tools/call", { name: "invoices", arguments: {} }, bearer("outsider"));
    expect(hidden.json).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/^Unknown tool: invoices/) },
    });
  });

  it("canAccess runs once for a tools/call in a session too: the POST's check reaches the session's connection", async () => {
    const asked: string[] = [];
    const url = await serve(true, asked);
    const { client } = await connect(url, { token: TOKENS.admin.token });
    expect((await client.callTool({ name: "invoices", arguments: {} })).structuredContent).toEqual({
      done: "invoices",
    });
    expect(asked).toEqual(["admin invoices"]);
    await client.close();
    // Hidden from the outsider: still unknown to it when the connection reuses the check.
    const outsider = await connect(url, { token: TOKENS.outsider.token });
    await expect(outsider.client.callTool({ name: "invoices", arguments: {} })).rejects.toThrow(
      /Unknown tool: invoices\. Closest tools: list_notes$/,
    );
    await outsider.client.close();
  });
});
