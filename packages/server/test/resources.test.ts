import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { definePack, defineResource, defineResourceTemplate } from "@toolshed/schema";
import { captureLogger } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "../src/index.js";
import { notesPack } from "./fixtures.js";
import { docsPack, META, rawPeer } from "./more-fixtures.js";

let server: ToolshedServer;
let client: Client;
let logs: ReturnType<typeof captureLogger>;

beforeEach(async () => {
  logs = captureLogger(createLogger);
  server = createServer({ name: "res", version: "1.0.0", packs: [notesPack, docsPack], logger: logs.logger });
  client = await connectInMemory(server);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

async function readError(uri: string): Promise<McpError> {
  const error = await client.readResource({ uri }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("resources/list", () => {
  it("lists static resources, then what templates list, with the template's mimeType unless the item has its own", async () => {
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      {
        uri: "config://app",
        name: "app_config",
        title: "App config",
        description: "The app's settings as JSON",
        mimeType: "application/json",
      },
      { uri: "logo://small", name: "logo", description: "A tiny PNG", mimeType: "image/png" },
      { uri: "multi://parts", name: "parts", description: "A document in two parts" },
      { uri: "gone://doc", name: "gone", description: "A document that was deleted" },
      { uri: "secret://boom", name: "boom", description: "Fails with an unexpected exception" },
      { uri: "busy://db", name: "busy", description: "Fails with a retryable tool error" },
      { uri: "picky://doc", name: "picky", description: "Fails with invalid arguments" },
      { uri: "ticket://101", name: "ticket 101", mimeType: "application/json" },
      { uri: "ticket://102", name: "ticket 102", mimeType: "text/plain" },
    ]);
  });

  it("the server declares the resources capability only because packs have resources", async () => {
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true });
    const toolsOnly = createServer({ name: "t", version: "1", packs: [], logger: logs.logger });
    const c = await connectInMemory(toolsOnly);
    expect(c.getServerCapabilities()?.resources).toBeUndefined();
    const error = await c.request({ method: "resources/list" } as never, {} as never).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32601);
    await c.close();
    await toolsOnly.close();
  });
});

describe("resources/templates/list", () => {
  it("lists every template with its uriTemplate, name, title, description and mimeType", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      {
        uriTemplate: "note://{title}",
        name: "note",
        description: "A note's body as markdown",
        mimeType: "text/markdown",
      },
      {
        uriTemplate: "ticket://{id}",
        name: "ticket",
        title: "Ticket",
        description: "One support ticket as JSON",
        mimeType: "application/json",
      },
    ]);
  });
});

describe("resources/read", () => {
  it("reads a static resource: its text, its uri and its mimeType", async () => {
    expect(await client.readResource({ uri: "config://app" })).toEqual({
      contents: [{ uri: "config://app", mimeType: "application/json", text: '{"theme":"dark"}' }],
    });
  });

  it("reads a template URI: note://groceries is the note's markdown", async () => {
    expect(await client.readResource({ uri: "note://groceries" })).toEqual({
      contents: [{ uri: "note://groceries", mimeType: "text/markdown", text: "milk, eggs" }],
    });
  });

  it("passes the parsed (coerced) params and the URI to the template's read handler", async () => {
    const result = await client.readResource({ uri: "ticket://150" });
    expect(result.contents).toEqual([
      { uri: "ticket://150", mimeType: "application/json", text: '{"id":150,"uri":"ticket://150","client":null}' },
    ]);
  });

  it("returns blob contents as base64 with the resource's mimeType", async () => {
    expect(await client.readResource({ uri: "logo://small" })).toEqual({
      contents: [{ uri: "logo://small", mimeType: "image/png", blob: "iVBORw0KGgo=" }],
    });
  });

  it("returns several content items, each keeping its own uri and mimeType", async () => {
    expect(await client.readResource({ uri: "multi://parts" })).toEqual({
      contents: [
        { uri: "multi://parts", text: "part one" },
        { uri: "multi://parts#2", mimeType: "text/plain", text: "part two" },
      ],
    });
  });

  it("a template URI whose params fail the schema is -32602 with one hint line per problem", async () => {
    const tooSmall = await readError("ticket://42");
    expect(tooSmall.code).toBe(-32602);
    expect(tooSmall.message).toBe(
      "MCP error -32602: Invalid resource URI ticket://42:\nid: must be at least 100 (got 42)",
    );
    const notInteger = await readError("ticket://1.5");
    expect(notInteger.code).toBe(-32602);
    expect(notInteger.message).toBe(
      "MCP error -32602: Invalid resource URI ticket://1.5:\nid: must be an integer (got 1.5)",
    );
  });

  it("an unknown URI is -32002 naming every known resource and template, with the uri as data", async () => {
    const error = await readError("nope://x");
    expect(error.code).toBe(-32002);
    expect(error.message).toBe(
      "MCP error -32002: Resource not found: nope://x. Known resources: config://app, logo://small, multi://parts, " +
        "gone://doc, secret://boom, busy://db, picky://doc, note://{title}, ticket://{id}",
    );
    expect(error.data).toEqual({ uri: "nope://x" });
  });

  it("an unknown URI on a server with only templates names the templates", async () => {
    const s = createServer({ name: "n", version: "1", packs: [notesPack], logger: logs.logger });
    const c = await connectInMemory(s);
    const error = (await c.readResource({ uri: "nope://x" }).catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(-32002);
    expect(error.message).toBe("MCP error -32002: Resource not found: nope://x. Known resources: note://{title}");
    await c.close();
    await s.close();
  });

  it("a read handler throwing NotFoundError is -32002 with its message and error class", async () => {
    const error = await readError("gone://doc");
    expect(error.code).toBe(-32002);
    expect(error.message).toBe("MCP error -32002: Document 'doc' was deleted; see resources/list for what exists");
    expect(error.data).toEqual({ [META]: { kind: "tool", code: "not_found", retryable: false } });
  });

  it("a template's read handler throwing NotFoundError is -32002 too", async () => {
    const error = await readError("note://nope");
    expect(error.code).toBe(-32002);
    expect(error.message).toBe("MCP error -32002: No note 'nope'");
  });

  it("a read handler throwing InvalidArgumentsError is -32602 with its message", async () => {
    const error = await readError("picky://doc");
    expect(error.code).toBe(-32602);
    expect(error.message).toBe("MCP error -32602: this document needs a version; use picky://doc?v=2");
  });

  it("a read handler throwing another ToolError is -32603 with its message and its retry class", async () => {
    const error = await readError("busy://db");
    expect(error.code).toBe(-32603);
    expect(error.message).toBe("MCP error -32603: the database is busy");
    expect(error.data).toEqual({ [META]: { kind: "tool", code: "unavailable", retryable: true } });
  });

  it("a read handler throwing a plain Error is masked: -32603 with a ref, no secret on the wire, logged with the ref", async () => {
    const raw = await rawPeer(server);
    await raw.send({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "secret://boom" } });
    const response = await raw.response(1);
    const wire = JSON.stringify(response);
    expect(response.error?.code).toBe(-32603);
    expect(response.error?.message).toMatch(/^Internal error \(ref [0-9a-f]{8}\)$/);
    expect(response.error?.data).toBeUndefined();
    for (const secret of ["hunter2", "/srv/app", "secret.ts", "stack"]) expect(wire).not.toContain(secret);
    const ref = response.error?.message.slice("Internal error (ref ".length, -1);
    const logged = logs.lines.find((l) => l.ref === ref);
    expect(logged?.level).toBe(50);
    expect(JSON.stringify(logged)).toContain("db password hunter2");
    await raw.close();
  });

  it("resources/read without a uri is -32602", async () => {
    const raw = await rawPeer(server);
    await raw.send({ jsonrpc: "2.0", id: 1, method: "resources/read", params: {} });
    expect((await raw.response(1)).error).toEqual({
      code: -32602,
      message: "Invalid params for resources/read: params.uri must be the resource URI (a non-empty string)",
    });
    await raw.close();
  });

  it("the template read handler sees the caller's credentials", async () => {
    const c = await connectInMemory(server, { authInfo: { token: "t", clientId: "reader-7", scopes: [] } });
    const result = await c.readResource({ uri: "ticket://101" });
    expect(result.contents[0]).toEqual({
      uri: "ticket://101",
      mimeType: "application/json",
      text: '{"id":101,"uri":"ticket://101","client":"reader-7"}',
    });
    await c.close();
  });

  it("a static resource wins over a template it also fits, and is listed once", async () => {
    const configPack = definePack({
      name: "config",
      resources: [
        defineResource({ uri: "config://app", name: "app", description: "The app's config", read: () => "static" }),
        defineResourceTemplate({
          uriTemplate: "config://{name}",
          name: "config",
          description: "Any config by name",
          params: z.object({ name: z.string().describe("Config name") }),
          list: () => [{ uri: "config://db", name: "db" }],
          read: ({ name }) => `template ${name}`,
        }),
      ],
    });
    const s = createServer({ name: "cfg", version: "1", packs: [configPack], logger: logs.logger });
    const c = await connectInMemory(s);
    expect((await c.listResources()).resources.map((r) => r.uri)).toEqual(["config://app", "config://db"]);
    expect((await c.readResource({ uri: "config://app" })).contents).toEqual([{ uri: "config://app", text: "static" }]);
    expect((await c.readResource({ uri: "config://db" })).contents).toEqual([
      { uri: "config://db", text: "template db" },
    ]);
    await c.close();
    await s.close();
  });

  it("a template list handler that throws is masked: -32603 with a ref", async () => {
    const failing = definePack({
      name: "failing",
      resources: [
        defineResourceTemplate({
          uriTemplate: "f://{x}",
          name: "f",
          description: "Fails to list",
          params: z.object({ x: z.string().describe("Anything") }),
          list: () => {
            throw new Error("list password hunter2");
          },
          read: ({ x }) => x,
        }),
      ],
    });
    const s = createServer({ name: "f", version: "1", packs: [failing], logger: logs.logger });
    const c = await connectInMemory(s);
    const error = (await c.listResources().catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/^MCP error -32603: Internal error \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(error)).not.toContain("hunter2");
    await c.close();
    await s.close();
  });
});
