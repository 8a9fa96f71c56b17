// Issue 36, left-over 2: resources/read and prompts/get answers were not capped the way tools/call
// results are, so one read could build an answer of any size. Now the same per-result limit holds.

import { Client as ClientV2, InMemoryTransport as InMemoryV2, ProtocolError } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { McpServer as McpServerV2 } from "@modelcontextprotocol/server";
import { definePack, definePrompt, defineResource, defineResourceTemplate } from "@toolshed/schema";
import { captureLogger } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { attachPack, connectInMemory, createLogger, createServer } from "../src/index.js";

const MiB = 1024 * 1024;

/** A pack whose resource, template and prompt answer with as many characters as asked. */
function sizedPack(size: number) {
  return definePack({
    name: "sized",
    resources: [
      defineResource({ uri: "big://doc", name: "big", description: "A large document", read: () => "x".repeat(size) }),
      defineResource({ uri: "small://doc", name: "small", description: "A short document", read: () => "short" }),
      defineResourceTemplate({
        uriTemplate: "page://{n}",
        name: "page",
        description: "n characters",
        params: z.object({ n: z.coerce.number().int().min(0) }),
        read: ({ n }) => "y".repeat(n),
      }),
    ],
    prompts: [
      definePrompt({
        name: "repeat",
        description: "Repeats a word n times",
        args: z.object({ n: z.string().describe("How many times") }),
        render: ({ n }) => "word ".repeat(Number(n)),
      }),
    ],
  });
}

const logs = captureLogger(createLogger);
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function errorOf(promise: Promise<unknown>): Promise<{ code: number; message: string; data: unknown }> {
  const error = (await promise.catch((e: unknown) => e)) as { code: number; message: string; data: unknown };
  expect(error).toBeInstanceOf(Error);
  return error;
}

describe("createServer: maxResultBytes caps resources/read and prompts/get", () => {
  async function connect(maxResultBytes?: number) {
    const server = createServer({
      name: "caps",
      version: "1.0.0",
      packs: [sizedPack(20_000)],
      logger: logs.logger,
      ...(maxResultBytes === undefined ? {} : { maxResultBytes }),
    });
    const client = await connectInMemory(server);
    closers.push(
      () => server.close(),
      () => client.close(),
    );
    return client;
  }

  it("a read over the limit is -32603 too_large, saying the size, the limit and what to do; smaller reads answer", async () => {
    const client = await connect(10_000);
    const error = await errorOf(client.readResource({ uri: "big://doc" }));
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(
      /^MCP error -32603: Result too large: the answer to resources\/read big:\/\/doc is about 20\d{3} bytes, more than the limit of 10000 bytes for one result; read a narrower resource \(a template with a smaller page or range\) or raise the server's result limit$/,
    );
    expect(error.data).toMatchObject({ code: "too_large", limit: 10_000 });
    expect(await client.readResource({ uri: "small://doc" })).toMatchObject({ contents: [{ text: "short" }] });
    // A template's read is capped alike; one just under the limit answers.
    expect((await errorOf(client.readResource({ uri: "page://20000" }))).code).toBe(-32603);
    const page = await client.readResource({ uri: "page://9000" });
    expect((page.contents[0] as { text: string }).text).toHaveLength(9000);
  });

  it("a prompt over the limit is -32603 too_large; a smaller one answers", async () => {
    const client = await connect(10_000);
    const error = await errorOf(client.getPrompt({ name: "repeat", arguments: { n: "5000" } }));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(
      /^MCP error -32603: Result too large: the answer to prompts\/get repeat is about 2\d{4} bytes, more than the limit of 10000 bytes for one result; get it again with arguments that select less, or raise the server's result limit$/,
    );
    const small = await client.getPrompt({ name: "repeat", arguments: { n: "3" } });
    expect(small.messages[0]?.content).toEqual({ type: "text", text: "word word word " });
  });

  it("0 turns the cap off; the default is 4 MiB", async () => {
    const off = await connect(0);
    expect((await off.readResource({ uri: "page://5000000" })).contents).toHaveLength(1);
    const byDefault = await connect();
    expect((await errorOf(byDefault.readResource({ uri: `page://${5 * MiB}` }))).message).toContain(
      `more than the limit of ${4 * MiB} bytes`,
    );
    expect((await byDefault.readResource({ uri: `page://${MiB}` })).contents).toHaveLength(1);
  });
});

describe("attachPack: the 4 MiB default holds on SDK servers too", () => {
  it("SDK 1.x McpServer", async () => {
    const mcp = new McpServer({ name: "plain", version: "1.0.0" });
    attachPack(mcp, sizedPack(5 * MiB), { logger: logs.logger });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: "caps", version: "0.0.0" });
    await client.connect(clientSide);
    closers.push(
      () => mcp.close(),
      () => client.close(),
    );
    const error = await errorOf(client.readResource({ uri: "big://doc" }));
    expect(error.code).toBe(-32603);
    expect(error.message).toContain("Result too large: the answer to resources/read big://doc is about");
    expect((await errorOf(client.getPrompt({ name: "repeat", arguments: { n: String(MiB) } }))).code).toBe(-32603);
    expect(await client.readResource({ uri: "small://doc" })).toMatchObject({ contents: [{ text: "short" }] });
  });

  it("SDK v2 McpServer", async () => {
    const mcp = new McpServerV2({ name: "v2", version: "1.0.0" });
    attachPack(mcp, sizedPack(5 * MiB), { logger: logs.logger });
    const [clientSide, serverSide] = InMemoryV2.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new ClientV2({ name: "caps", version: "0.0.0" });
    await client.connect(clientSide);
    closers.push(
      () => mcp.close(),
      () => client.close(),
    );
    const error = await errorOf(client.readResource({ uri: "big://doc" }));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.code).toBe(-32603);
    expect(error.message).toContain("Result too large: the answer to resources/read big://doc is about");
    expect(await client.readResource({ uri: "small://doc" })).toMatchObject({ contents: [{ text: "short" }] });
  });
});
