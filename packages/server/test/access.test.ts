// Per-definition authorization: requiredScopes on tools, resources, templates, prompts and packs,
// and canAccess, in both protocol eras; read-only (C14) as before; the tool outcome hook.

import { StreamableHTTPClientTransport, Client as V2Client } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHandler, McpServer as V2McpServer } from "@modelcontextprotocol/server";
import { ToolError } from "@toolshed/errors";
import {
  type AuthInfo,
  definePack,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  type Pack,
} from "@toolshed/schema";
import { captureLogger, resultText } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AccessTarget,
  attachPack,
  type CanAccess,
  type CreateServerOptions,
  connectInMemory,
  createLogger,
  createServer,
  type ToolshedServer,
} from "../src/index.js";
import type { CallScope } from "../src/internal.js";
import { META } from "./more-fixtures.js";

const logs = captureLogger(createLogger);

function notesPack(): Pack {
  return definePack({
    name: "notes",
    tools: [
      defineTool({
        name: "get_note",
        description: "Returns one note.",
        input: z.object({ title: z.string().describe("Title of the note") }),
        annotations: { readOnlyHint: true },
        handler: ({ title }) => `note ${title}`,
      }),
      defineTool({
        name: "add_note",
        description: "Adds a note.",
        input: z.object({ title: z.string().describe("Title of the new note") }),
        handler: ({ title }) => `added ${title}`,
      }),
      defineTool({
        name: "delete_note",
        description: "Deletes a note for good.",
        input: z.object({ title: z.string().describe("Title of the note to delete") }),
        requiredScopes: ["notes:admin"],
        handler: ({ title }) => `deleted ${title}`,
      }),
      defineTool({
        name: "delete_notes",
        description: "Deletes several notes.",
        input: z.object({ titles: z.array(z.string()).describe("Titles of the notes to delete") }),
        handler: ({ titles }) => `deleted ${titles.length}`,
      }),
    ],
    resources: [
      defineResource({ uri: "note://public", name: "public", description: "The public board", read: () => "hi" }),
      defineResource({
        uri: "note://index",
        name: "index",
        description: "All note titles",
        requiredScopes: ["notes:read"],
        read: () => "groceries",
      }),
      defineResourceTemplate({
        uriTemplate: "note://{title}",
        name: "note",
        description: "One note's body",
        params: z.object({ title: z.string().describe("Note title") }),
        requiredScopes: ["notes:read"],
        list: () => [{ uri: "note://groceries", name: "groceries" }],
        complete: { title: (value) => ["groceries", "todo"].filter((t) => t.startsWith(value)) },
        read: ({ title }) => `body of ${title}`,
      }),
    ],
    prompts: [
      definePrompt({ name: "hello", description: "Says hello", args: z.object({}), render: () => "hello" }),
      definePrompt({
        name: "summarize",
        description: "Summarizes a note",
        args: z.object({ title: z.string().describe("Title of the note") }),
        complete: { title: (value) => ["groceries"].filter((t) => t.startsWith(value)) },
        requiredScopes: ["notes:read"],
        render: ({ title }) => `Summarize ${title}`,
      }),
    ],
  });
}

/** Everything in it needs `admin`; purge_all needs `admin:danger` as well. */
function adminPack(): Pack {
  return definePack({
    name: "admin",
    requiredScopes: ["admin"],
    tools: [
      defineTool({
        name: "purge",
        description: "Purges the trash.",
        input: z.object({}),
        annotations: { readOnlyHint: true },
        handler: () => "purged",
      }),
      defineTool({
        name: "purge_all",
        description: "Purges everything.",
        input: z.object({}),
        requiredScopes: ["admin:danger"],
        handler: () => "all gone",
      }),
    ],
    resources: [defineResource({ uri: "admin://log", name: "log", description: "The audit log", read: () => "log" })],
    prompts: [definePrompt({ name: "audit", description: "Audits", args: z.object({}), render: () => "audit" })],
  });
}

const auth = (clientId: string, scopes: string[]): AuthInfo => ({ token: `t-${clientId}`, clientId, scopes });
const FULL = auth("full", ["tools:read", "tools:write", "notes:read", "notes:admin", "admin", "admin:danger"]);
const WRITER = auth("writer", ["tools:read", "tools:write"]);
const READER = auth("reader", ["tools:read"]);
const NOTES_READER = auth("notes-reader", ["tools:read", "tools:write", "notes:read"]);

const servers: ToolshedServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

function serve(options: Partial<CreateServerOptions> = {}): ToolshedServer {
  const server = createServer({
    name: "scoped",
    version: "1.0.0",
    packs: [notesPack(), adminPack()],
    logger: logs.logger,
    ...options,
  });
  servers.push(server);
  return server;
}

type Era = "2025" | "2026-07-28";
interface Answer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** One request through the protocol core, as a transport makes it, in the given era. */
async function ask(
  server: ToolshedServer,
  era: Era,
  method: string,
  params: Record<string, unknown>,
  authInfo?: AuthInfo,
  extra: Partial<CallScope> = {},
): Promise<Answer> {
  const body =
    era === "2026-07-28"
      ? {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        }
      : params;
  const scope: CallScope = { signal: new AbortController().signal, logger: logs.logger, ...extra };
  if (authInfo) scope.authInfo = authInfo;
  const answer = await server.core.dispatch({ jsonrpc: "2.0", id: 1, method, params: body }, scope);
  return answer as Answer;
}

const names = (items: unknown) => (items as Array<{ name: string }>).map((i) => i.name).sort();
const uris = (items: unknown) => (items as Array<{ uri: string }>).map((i) => i.uri).sort();

/** What each list shows one caller. */
async function lists(server: ToolshedServer, era: Era, authInfo?: AuthInfo) {
  const tools = await ask(server, era, "tools/list", {}, authInfo);
  const resources = await ask(server, era, "resources/list", {}, authInfo);
  const templates = await ask(server, era, "resources/templates/list", {}, authInfo);
  const prompts = await ask(server, era, "prompts/list", {}, authInfo);
  return {
    tools: names(tools.result?.tools),
    resources: uris(resources.result?.resources),
    templates: names(templates.result?.resourceTemplates),
    prompts: names(prompts.result?.prompts),
  };
}

const NOT_ADMIN_MESSAGE =
  "Forbidden: tools/call delete_note needs the scope notes:admin (this token has tools:read tools:write); ask the authorization server for a token with notes:admin";

describe.each(["2025", "2026-07-28"] as const)("requiredScopes and canAccess, %s", (era) => {
  it("each list shows a definition only to a token with all its scopes", async () => {
    const server = serve();
    expect(await lists(server, era, FULL)).toEqual({
      tools: ["add_note", "delete_note", "delete_notes", "get_note", "purge", "purge_all"],
      resources: ["admin://log", "note://groceries", "note://index", "note://public"],
      templates: ["note"],
      prompts: ["audit", "hello", "summarize"],
    });
    expect(await lists(server, era, WRITER)).toEqual({
      tools: ["add_note", "delete_notes", "get_note"],
      resources: ["note://public"],
      templates: [],
      prompts: ["hello"],
    });
    expect(await lists(server, era, NOTES_READER)).toEqual({
      tools: ["add_note", "delete_notes", "get_note"],
      resources: ["note://groceries", "note://index", "note://public"],
      templates: ["note"],
      prompts: ["hello", "summarize"],
    });
  });

  it("a pack's scopes apply to everything in it, with each definition's own on top", async () => {
    const server = serve();
    const admin = auth("admin", ["tools:read", "tools:write", "admin"]);
    expect(await lists(server, era, admin)).toMatchObject({
      tools: ["add_note", "delete_notes", "get_note", "purge"],
      resources: ["admin://log", "note://public"],
      prompts: ["audit", "hello"],
    });
    const denied = await ask(server, era, "tools/call", { name: "purge_all", arguments: {} }, admin);
    expect(denied.error).toEqual({
      code: -32003,
      message:
        "Forbidden: tools/call purge_all needs the scope admin:danger (this token has tools:read tools:write admin); ask the authorization server for a token with admin:danger",
      data: { requiredScopes: ["admin", "admin:danger"], missingScopes: ["admin:danger"] },
    });
    const writer = await ask(server, era, "tools/call", { name: "purge_all", arguments: {} }, WRITER);
    expect(writer.error?.message).toBe(
      "Forbidden: tools/call purge_all needs the scopes admin admin:danger (this token has tools:read tools:write); ask the authorization server for a token with admin admin:danger",
    );
    expect(writer.error?.data).toEqual({
      requiredScopes: ["admin", "admin:danger"],
      missingScopes: ["admin", "admin:danger"],
    });
    expect((await ask(server, era, "tools/call", { name: "purge", arguments: {} }, admin)).result).toMatchObject({
      content: [{ type: "text", text: "purged" }],
    });
  });

  it("a call the caller may see but lacks a scope for is -32003 with the scopes in data", async () => {
    const server = serve();
    const call = await ask(server, era, "tools/call", { name: "delete_note", arguments: { title: "x" } }, WRITER);
    expect(call.error).toEqual({
      code: -32003,
      message: NOT_ADMIN_MESSAGE,
      data: { requiredScopes: ["notes:admin"], missingScopes: ["notes:admin"] },
    });
    const scopes = { requiredScopes: ["notes:read"], missingScopes: ["notes:read"] };
    const read = await ask(server, era, "resources/read", { uri: "note://index" }, WRITER);
    expect(read.error).toMatchObject({ code: -32003, data: scopes });
    expect(read.error?.message).toMatch(/^Forbidden: resources\/read note:\/\/index needs the scope notes:read /);
    const templated = await ask(server, era, "resources/read", { uri: "note://groceries" }, WRITER);
    expect(templated.error).toMatchObject({ code: -32003, data: scopes });
    const prompt = await ask(server, era, "prompts/get", { name: "summarize", arguments: { title: "a" } }, WRITER);
    expect(prompt.error).toMatchObject({ code: -32003, data: scopes });
    const completion = await ask(
      server,
      era,
      "completion/complete",
      { ref: { type: "ref/resource", uri: "note://{title}" }, argument: { name: "title", value: "g" } },
      WRITER,
    );
    expect(completion.error).toMatchObject({ code: -32003, data: scopes });
    // The same calls with the scopes succeed.
    const ok = await ask(server, era, "tools/call", { name: "delete_note", arguments: { title: "x" } }, FULL);
    expect(ok.result).toMatchObject({ content: [{ type: "text", text: "deleted x" }] });
    const body = await ask(server, era, "resources/read", { uri: "note://groceries" }, NOTES_READER);
    expect(body.result).toMatchObject({ contents: [{ uri: "note://groceries", text: "body of groceries" }] });
  });

  it("without credentials (a local server) every definition is listed and callable", async () => {
    const server = serve();
    expect(await lists(server, era, undefined)).toEqual({
      tools: ["add_note", "delete_note", "delete_notes", "get_note", "purge", "purge_all"],
      resources: ["admin://log", "note://groceries", "note://index", "note://public"],
      templates: ["note"],
      prompts: ["audit", "hello", "summarize"],
    });
    const call = await ask(server, era, "tools/call", { name: "delete_note", arguments: { title: "x" } });
    expect(call.result).toMatchObject({ content: [{ type: "text", text: "deleted x" }] });
    expect((await ask(server, era, "resources/read", { uri: "note://index" })).result).toMatchObject({
      contents: [{ text: "groceries" }],
    });
  });

  it("canAccess false hides a tool: not listed, and a call reads exactly as for a tool that does not exist", async () => {
    const owner: CanAccess = (who, target) => target.name !== "delete_note" || who?.clientId === "owner";
    const server = serve({ canAccess: owner });
    const guest = auth("guest", ["tools:read", "tools:write", "notes:admin"]);
    expect((await lists(server, era, guest)).tools).not.toContain("delete_note");
    const hidden = await ask(server, era, "tools/call", { name: "delete_note", arguments: { title: "x" } }, guest);
    expect(hidden.error).toEqual({
      code: -32602,
      message: "Unknown tool: delete_note. Closest tools: delete_notes, get_note, add_note",
    });
    // A misspelt name: the hint draws only on tools this caller can see.
    const misspelt = await ask(server, era, "tools/call", { name: "delete_not", arguments: {} }, guest);
    expect(misspelt.error?.message).toBe("Unknown tool: delete_not. Closest tools: delete_notes, get_note, add_note");
    const ownerAuth = auth("owner", ["tools:read", "tools:write", "notes:admin"]);
    expect((await lists(server, era, ownerAuth)).tools).toContain("delete_note");
    const seen = await ask(server, era, "tools/call", { name: "delete_not", arguments: {} }, ownerAuth);
    expect(seen.error?.message).toBe("Unknown tool: delete_not. Closest tools: delete_note, delete_notes, get_note");
  });

  it("canAccess hides resources, templates and prompts: reads and gets answer as for ones that do not exist", async () => {
    const noNotes: CanAccess = (who, target) =>
      who?.clientId !== "guest" || !["note", "index", "summarize"].includes(target.name);
    const server = serve({ canAccess: noNotes });
    const guest = auth("guest", ["tools:read", "tools:write", "notes:read"]);
    expect(await lists(server, era, guest)).toMatchObject({
      resources: ["note://public"],
      templates: [],
      prompts: ["hello"],
    });
    const read = await ask(server, era, "resources/read", { uri: "note://groceries" }, guest);
    expect(read.error).toEqual({
      code: era === "2025" ? -32002 : -32602,
      message: "Resource not found: note://groceries. Known resources: note://public",
      data: { uri: "note://groceries" },
    });
    const prompt = await ask(server, era, "prompts/get", { name: "summarize", arguments: { title: "a" } }, guest);
    expect(prompt.error).toEqual({ code: -32602, message: "Unknown prompt: summarize. Known prompts: hello" });
    const complete = await ask(
      server,
      era,
      "completion/complete",
      { ref: { type: "ref/prompt", name: "summarize" }, argument: { name: "title", value: "g" } },
      guest,
    );
    expect(complete.error).toEqual({ code: -32602, message: "Unknown prompt: summarize" });
  });

  it("a canAccess that throws hides the definition and logs a warning, and the server goes on", async () => {
    const local = captureLogger(createLogger);
    const server = serve({
      logger: local.logger,
      canAccess: (_who, target: AccessTarget) => {
        if (target.kind === "tool" && target.name === "add_note") throw new Error("rules store is down");
        return true;
      },
    });
    expect((await lists(server, era, WRITER)).tools).toEqual(["delete_notes", "get_note"]);
    const call = await ask(server, era, "tools/call", { name: "add_note", arguments: { title: "x" } }, WRITER);
    expect(call.error?.message).toMatch(/^Unknown tool: add_note\./);
    expect(local.lines.find((l) => l.level === 40)).toMatchObject({
      msg: "canAccess threw for tool add_note; it is hidden from this caller. Return true or false instead of throwing",
      kind: "tool",
      name: "add_note",
      clientId: "writer",
    });
  });

  it("C14: tools:read alone still lists only read-only tools and refuses writes as a tool error", async () => {
    const server = serve();
    expect((await lists(server, era, READER)).tools).toEqual(["get_note"]);
    const write = await ask(server, era, "tools/call", { name: "add_note", arguments: { title: "x" } }, READER);
    const result = write.result as unknown as CallToolResult;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      "Error executing tool add_note: your credentials allow read-only tools only; add_note changes data. Read-only tools: get_note",
    );
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "permission_denied", retryable: false });
  });

  it("C14: a read-only server without credentials keeps to read-only tools", async () => {
    const server = serve({ readOnly: true });
    expect((await lists(server, era, undefined)).tools).toEqual(["get_note", "purge"]);
    const write = await ask(server, era, "tools/call", { name: "delete_note", arguments: { title: "x" } });
    expect(resultText(write.result as unknown as CallToolResult)).toMatch(
      /^Error executing tool delete_note: this server is read-only; delete_note changes data\. Read-only tools: get_note, purge$/,
    );
  });
});

describe("2026-07-28 cache hints of filtered lists", () => {
  it("a list filtered for an authenticated caller is private even when the pack calls it public", async () => {
    const pack = definePack({
      name: "open",
      cache: { definitions: { scope: "public", ttlMs: 60_000 }, data: { scope: "public" } },
      tools: [
        defineTool({
          name: "secret",
          description: "Needs a scope",
          input: z.object({}),
          requiredScopes: ["s"],
          handler: () => "x",
        }),
      ],
      resources: [defineResource({ uri: "r://1", name: "one", description: "One", read: () => "1" })],
    });
    const server = serve({ packs: [pack] });
    const list = await ask(server, "2026-07-28", "tools/list", {}, WRITER);
    expect(list.result).toMatchObject({ tools: [], ttlMs: 60_000, cacheScope: "private" });
    const resources = await ask(server, "2026-07-28", "resources/list", {}, WRITER);
    expect(resources.result).toMatchObject({ cacheScope: "private" });
    // Without credentials nothing is filtered by scope: the pack's hint stands.
    expect((await ask(server, "2026-07-28", "tools/list", {})).result).toMatchObject({ cacheScope: "public" });
  });

  it("a read of a guarded resource is private for an authenticated caller even when the pack calls its data public (issue 36)", async () => {
    const pack = definePack({
      name: "open",
      cache: { data: { scope: "public", ttlMs: 60_000 } },
      resources: [
        defineResource({
          uri: "r://secret",
          name: "secret",
          description: "Needs a scope",
          requiredScopes: ["s"],
          read: () => "only for s",
        }),
        defineResource({ uri: "r://open", name: "open", description: "Open", read: () => "anyone" }),
      ],
    });
    const server = serve({ packs: [pack] });
    const allowed = { ...WRITER, scopes: [...WRITER.scopes, "s"] };
    const read = await ask(server, "2026-07-28", "resources/read", { uri: "r://secret" }, allowed);
    // A shared cache must not hand what this caller may read to one who may not.
    expect(read.result).toMatchObject({ contents: [{ text: "only for s" }], ttlMs: 60_000, cacheScope: "private" });
    const open = await ask(server, "2026-07-28", "resources/read", { uri: "r://open" }, allowed);
    expect(open.result).toMatchObject({ cacheScope: "private" });
    // Without credentials nothing is filtered: the pack's hint stands.
    expect((await ask(server, "2026-07-28", "resources/read", { uri: "r://secret" })).result).toMatchObject({
      cacheScope: "public",
    });
  });

  it("with nothing guarded, lists keep today's hints and are the same precomputed lists", async () => {
    const plain = definePack({
      name: "plain",
      tools: [defineTool({ name: "t", description: "T", input: z.object({}), handler: () => "x" })],
    });
    const server = serve({ packs: [plain] });
    expect(server.runtime.filtersByCaller).toBe(false);
    const view = server.runtime.viewFor(WRITER);
    expect(server.runtime.listTools(view, WRITER)).toBe(server.runtime.listTools(view, FULL));
    expect((await ask(server, "2026-07-28", "tools/list", {}, WRITER)).result).toMatchObject({
      cacheScope: "private",
    });
    expect((await ask(server, "2026-07-28", "tools/list", {})).result).toMatchObject({ cacheScope: "public" });
  });
});

describe("2026-07-28 cache hints of lists a read-only token sees filtered (issue 58.11)", () => {
  const tool = (name: string, readOnlyHint: boolean) =>
    defineTool({ name, description: name, input: z.object({}), annotations: { readOnlyHint }, handler: () => "x" });

  it("the tool list of a server with write tools is private to every token, whatever the pack calls it", async () => {
    const pack = definePack({
      name: "open",
      cache: { definitions: { scope: "public", ttlMs: 60_000 } },
      tools: [tool("look", true), tool("change", false)],
    });
    const server = serve({ packs: [pack] });
    const reader = await ask(server, "2026-07-28", "tools/list", {}, READER);
    const writer = await ask(server, "2026-07-28", "tools/list", {}, WRITER);
    // The two lists differ (C14): a shared cache must not hand one to the other.
    expect((reader.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(["look"]);
    expect((writer.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(["look", "change"]);
    expect(reader.result).toMatchObject({ ttlMs: 60_000, cacheScope: "private" });
    expect(writer.result).toMatchObject({ ttlMs: 60_000, cacheScope: "private" });
    // Without credentials every caller gets the same list: the pack's hint stands.
    expect((await ask(server, "2026-07-28", "tools/list", {})).result).toMatchObject({ cacheScope: "public" });
  });

  it("a list every token sees whole keeps the pack's hint: only read-only tools, or a server started read-only", async () => {
    const readOnlyPack = definePack({
      name: "open",
      cache: { definitions: { scope: "public" } },
      tools: [tool("look", true)],
    });
    for (const server of [
      serve({ packs: [readOnlyPack] }),
      serve({
        packs: [
          definePack({
            name: "open",
            cache: { definitions: { scope: "public" } },
            tools: [tool("look", true), tool("change", false)],
          }),
        ],
        readOnly: true,
      }),
    ]) {
      expect(server.runtime.listsByCaller).toBe(false);
      expect((await ask(server, "2026-07-28", "tools/list", {}, READER)).result).toMatchObject({
        cacheScope: "public",
      });
    }
  });
});

describe("runtime.access, core.accessOfRequest and scopesSupported", () => {
  it("scopesSupported: tools:read, tools:write and every scope a definition or pack names, sorted, once each", () => {
    expect(serve().runtime.scopesSupported()).toEqual([
      "admin",
      "admin:danger",
      "notes:admin",
      "notes:read",
      "tools:read",
      "tools:write",
    ]);
    const plain = definePack({ name: "plain" });
    expect(serve({ packs: [plain] }).runtime.scopesSupported()).toEqual(["tools:read", "tools:write"]);
  });

  it("access: ok, hidden, or the scopes required and missing; unknown names are ok", () => {
    const server = serve({ canAccess: (who, t) => !(who?.clientId === "guest" && t.name === "get_note") });
    const { runtime } = server;
    expect(runtime.access(WRITER, "tool", "get_note")).toEqual({ ok: true });
    expect(runtime.access(auth("guest", []), "tool", "get_note")).toEqual({ ok: false, hidden: true });
    expect(runtime.access(WRITER, "tool", "delete_note")).toEqual({
      ok: false,
      hidden: false,
      requiredScopes: ["notes:admin"],
      missingScopes: ["notes:admin"],
    });
    expect(runtime.access(undefined, "tool", "delete_note")).toEqual({ ok: true });
    expect(runtime.access(WRITER, "tool", "no_such_tool")).toEqual({ ok: true });
    expect(runtime.access(WRITER, "resource", "note://groceries")).toMatchObject({ missingScopes: ["notes:read"] });
    expect(runtime.access(WRITER, "resource", "note://public")).toEqual({ ok: true });
    expect(runtime.access(WRITER, "resource", "admin://log")).toMatchObject({ missingScopes: ["admin"] });
    expect(runtime.access(WRITER, "resourceTemplate", "note://{title}")).toMatchObject({ hidden: false });
    expect(runtime.access(WRITER, "resourceTemplate", "note")).toMatchObject({ hidden: false });
    expect(runtime.access(WRITER, "prompt", "audit")).toMatchObject({ missingScopes: ["admin"] });
  });

  it("accessOfRequest maps each method that names a definition, and nothing else", () => {
    const { core } = serve();
    const denied = (action: string, missing: string[]) => ({
      ok: false,
      hidden: false,
      action,
      requiredScopes: missing,
      missingScopes: missing,
    });
    const of = (method: string, params?: unknown) => core.accessOfRequest({ method, params }, WRITER);
    expect(of("tools/call", { name: "delete_note" })).toEqual(denied("tools/call delete_note", ["notes:admin"]));
    expect(of("tools/call", { name: "get_note" })).toEqual({ ok: true });
    expect(of("resources/read", { uri: "note://index" })).toEqual(
      denied("resources/read note://index", ["notes:read"]),
    );
    expect(of("resources/subscribe", { uri: "admin://log" })).toEqual(
      denied("resources/subscribe admin://log", ["admin"]),
    );
    expect(of("prompts/get", { name: "audit" })).toEqual(denied("prompts/get audit", ["admin"]));
    expect(of("completion/complete", { ref: { type: "ref/prompt", name: "summarize" } })).toEqual(
      denied("completion/complete summarize", ["notes:read"]),
    );
    expect(of("completion/complete", { ref: { type: "ref/resource", uri: "note://{title}" } })).toEqual(
      denied("completion/complete note://{title}", ["notes:read"]),
    );
    expect(of("completion/complete", { ref: { type: "ref/resource", uri: "admin://log" } })).toEqual(
      denied("completion/complete admin://log", ["admin"]),
    );
    expect(of("tools/list")).toBeUndefined();
    expect(of("ping")).toBeUndefined();
    expect(of("tools/call", { arguments: {} })).toBeUndefined();
    expect(of("tools/call", "not an object")).toBeUndefined();
    expect(core.accessOfRequest({ method: "tools/call", params: { name: "delete_note" } }, undefined)).toEqual({
      ok: true,
    });
  });

  it("accessOfRequest says hidden for what canAccess hides, so dispatch answers it as unknown", () => {
    const { core } = serve({ canAccess: (_who, t) => t.name !== "get_note" });
    expect(core.accessOfRequest({ method: "tools/call", params: { name: "get_note" } }, WRITER)).toEqual({
      ok: false,
      hidden: true,
    });
  });
});

describe("2025 connections (in memory, the SDK client)", () => {
  it("lists, calls and subscriptions follow the connection's credentials", async () => {
    const server = serve();
    const client = await connectInMemory(server, { authInfo: WRITER });
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      "add_note",
      "delete_notes",
      "get_note",
    ]);
    await expect(client.callTool({ name: "delete_note", arguments: { title: "x" } })).rejects.toMatchObject({
      code: -32003,
      message: expect.stringContaining(NOT_ADMIN_MESSAGE),
      data: { requiredScopes: ["notes:admin"], missingScopes: ["notes:admin"] },
    });
    await expect(client.subscribeResource({ uri: "note://index" })).rejects.toMatchObject({ code: -32003 });
    await expect(client.subscribeResource({ uri: "note://public" })).resolves.toEqual({});
  });
});

describe("onToolOutcome", () => {
  const outcomesPack = definePack({
    name: "outcomes",
    tools: [
      defineTool({
        name: "fine",
        description: "Works.",
        input: z.object({ n: z.number().int().describe("A whole number") }),
        handler: ({ n }) => n,
      }),
      defineTool({
        name: "refuses",
        description: "Fails with a tool error.",
        input: z.object({}),
        handler: () => {
          throw new ToolError("the store is full", { code: "unavailable" });
        },
      }),
      defineTool({
        name: "crashes",
        description: "Fails unexpectedly.",
        input: z.object({}),
        handler: () => {
          throw new Error("boom");
        },
      }),
      defineTool({
        name: "asks",
        description: "Asks the user.",
        input: z.object({}),
        handler: async (_args, ctx) => {
          const answer = await ctx.elicitInput({
            message: "Name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } } },
          });
          return String(answer.content?.name);
        },
      }),
    ],
  });

  it("createServer's listener hears each 2025 connection's calls with the log line's outcome, even with logs off", async () => {
    const heard: Array<[string, string]> = [];
    const server = serve({
      packs: [outcomesPack],
      logger: createLogger({ level: "silent" }),
      onToolOutcome: (name, outcome) => heard.push([name, outcome]),
    });
    const client = await connectInMemory(server);
    clients.push(client);
    await client.callTool({ name: "fine", arguments: { n: 1 } });
    await client.callTool({ name: "fine", arguments: { n: "one" } });
    await client.callTool({ name: "refuses", arguments: {} });
    await client.callTool({ name: "crashes", arguments: {} });
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/Unknown tool: nope/);
    expect(heard).toEqual([
      ["fine", "ok"],
      ["fine", "validation"],
      ["refuses", "tool"],
      ["crashes", "internal"],
    ]);
  });

  it("a request's own onToolOutcome wins over the server's, and hears input_required (2026-07-28)", async () => {
    const serverWide: string[] = [];
    const server = serve({ packs: [outcomesPack], onToolOutcome: (name) => serverWide.push(name) });
    const heard: Array<[string, string]> = [];
    const onToolOutcome = (name: string, outcome: string) => heard.push([name, outcome]);
    const modern = (params: Record<string, unknown>, capabilities: object) =>
      server.core.dispatch(
        {
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: {
            ...params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": capabilities,
            },
          },
        },
        { signal: new AbortController().signal, logger: logs.logger, onToolOutcome },
      );
    const asked = await modern({ name: "asks", arguments: {} }, { elicitation: { form: {} } });
    expect((asked as unknown as { result: { resultType: string } }).result.resultType).toBe("input_required");
    await modern({ name: "fine", arguments: { n: 2 } }, {});
    expect(heard).toEqual([
      ["asks", "input_required"],
      ["fine", "ok"],
    ]);
    expect(serverWide).toEqual([]);
  });

  it("the outcome matches the runtime's 'tool call' log line", async () => {
    const local = captureLogger(createLogger);
    const heard: string[] = [];
    const server = serve({ packs: [outcomesPack], logger: local.logger, onToolOutcome: (_n, o) => heard.push(o) });
    const client = await connectInMemory(server);
    clients.push(client);
    await client.callTool({ name: "refuses", arguments: {} });
    await client.callTool({ name: "fine", arguments: { n: 3 } });
    expect(local.lines.filter((l) => l.msg === "tool call").map((l) => l.outcome)).toEqual(heard);
    expect(heard).toEqual(["tool", "ok"]);
  });
});

describe("attachPack on an SDK 1.x McpServer", () => {
  async function attached(authInfo?: AuthInfo) {
    const mcp = new McpServer({ name: "own", version: "1.0.0" });
    attachPack(mcp, notesPack(), { logger: logs.logger });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    if (authInfo) {
      const send = clientSide.send.bind(clientSide);
      clientSide.send = (message, options) => send(message, { ...options, authInfo });
    }
    await mcp.connect(serverSide);
    const client = new Client({ name: "attach-scopes", version: "0.0.0" });
    await client.connect(clientSide);
    clients.push(client);
    return client;
  }

  it("a call whose token lacks a scope is a permission_denied tool error; resources and prompts -32003", async () => {
    const client = await attached(WRITER);
    const denied = (await client.callTool({ name: "delete_note", arguments: { title: "x" } })) as CallToolResult;
    expect(denied.isError).toBe(true);
    expect(resultText(denied)).toBe(`Error executing tool delete_note: ${NOT_ADMIN_MESSAGE}`);
    expect(denied._meta?.[META]).toEqual({ kind: "tool", code: "permission_denied", retryable: false });
    await expect(client.readResource({ uri: "note://index" })).rejects.toMatchObject({ code: -32003 });
    await expect(client.getPrompt({ name: "summarize", arguments: { title: "a" } })).rejects.toMatchObject({
      code: -32003,
    });
    // The SDK's own list is not filtered.
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("delete_note");
  });

  it("a call without credentials, or with the scope, runs", async () => {
    const local = await attached();
    const ok = (await local.callTool({ name: "delete_note", arguments: { title: "x" } })) as CallToolResult;
    expect(resultText(ok)).toBe("deleted x");
    const admin = await attached(FULL);
    expect(
      resultText((await admin.callTool({ name: "delete_note", arguments: { title: "y" } })) as CallToolResult),
    ).toBe("deleted y");
  });
});

describe.each(["modern", "legacy"] as const)("attachPack on an SDK v2 McpServer, %s era", (era) => {
  /** A v2 client whose requests go straight to createMcpHandler, with these credentials. */
  async function attached(authInfo: AuthInfo) {
    const handler = createMcpHandler(() => {
      const mcp = new V2McpServer({ name: "own-v2", version: "1.0.0" });
      attachPack(mcp, notesPack(), { logger: logs.logger });
      return mcp;
    });
    const client = new V2Client(
      { name: "attach-v2-scopes", version: "0.0.0" },
      { versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" } },
    );
    const fetch = (url: string | URL, init?: RequestInit) => handler.fetch(new Request(url, init), { authInfo });
    await client.connect(new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), { fetch }));
    return {
      client,
      close: async () => {
        await client.close();
        await handler.close();
      },
    };
  }

  it("a call whose token lacks a scope is a permission_denied tool error; with the scope it runs", async () => {
    const writer = await attached(WRITER);
    const denied = (await writer.client.callTool({ name: "delete_note", arguments: { title: "x" } })) as CallToolResult;
    expect(resultText(denied)).toBe(`Error executing tool delete_note: ${NOT_ADMIN_MESSAGE}`);
    expect(denied._meta?.[META]).toEqual({ kind: "tool", code: "permission_denied", retryable: false });
    await expect(writer.client.readResource({ uri: "note://index" })).rejects.toMatchObject({ code: -32003 });
    await writer.close();
    const admin = await attached(FULL);
    const ok = (await admin.client.callTool({ name: "delete_note", arguments: { title: "y" } })) as CallToolResult;
    expect(resultText(ok)).toBe("deleted y");
    await admin.close();
  });
});

describe.each(["2025", "2026-07-28"] as const)("hidden names in answers (issue 36), %s", (era) => {
  it("a hidden prompt, template or resource answers exactly as a missing one, and no hint names it", async () => {
    const noNotes: CanAccess = (who, target) =>
      who?.clientId !== "guest" || !["note", "index", "summarize"].includes(target.name);
    const server = serve({ canAccess: noNotes });
    const guest = auth("guest", ["tools:read", "tools:write", "notes:read"]);
    // Each pair: something hidden from the guest (or a near miss of it), then something that does not exist.
    const pairs: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ["prompts/get", { name: "summarise", arguments: {} }, { name: "zzzzzzzzz", arguments: {} }],
      [
        "completion/complete",
        { ref: { type: "ref/resource", uri: "note://{title}" }, argument: { name: "title", value: "g" } },
        { ref: { type: "ref/resource", uri: "nope://{title}" }, argument: { name: "title", value: "g" } },
      ],
      ["resources/read", { uri: "note://groceries" }, { uri: "nope://groceries" }],
    ];
    for (const [method, hidden, missing] of pairs) {
      const a = await ask(server, era, method, hidden, guest);
      const b = await ask(server, era, method, missing, guest);
      const neutral = (answer: Answer) =>
        JSON.stringify(answer.error)
          .replaceAll(/summarise|zzzzzzzzz/g, "NAME")
          .replaceAll(/note:\/\/\{title\}|nope:\/\/\{title\}/g, "URI")
          .replaceAll(/note:\/\/groceries|nope:\/\/groceries/g, "URI");
      expect(a.error, method).toBeDefined();
      expect(neutral(a), method).toBe(neutral(b));
      expect(JSON.stringify(a), method).not.toMatch(/summarize|"note"|index/);
    }
  });
});
