// What tools/list costs a model: the three packs publish no bound that says nothing (C5).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPacks } from "../src/index.js";

type Tool = { name: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown> };

let dir: string;
let tools: Tool[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolshed-packs-"));
  const opened = await openPacks({ db: join(dir, "all.db") });
  const server = createServer({
    name: "all",
    version: "1",
    packs: opened.packs,
    logger: createLogger({ level: "silent" }),
  });
  const client = await connectInMemory(server);
  tools = (await client.listTools()).tools as Tool[];
  await client.close();
  await server.close();
  await opened.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The bounds of every integer in a schema, by JSON path. */
function integerBounds(schema: unknown, at = ""): Record<string, { minimum?: unknown; maximum?: unknown }> {
  if (typeof schema !== "object" || schema === null) return {};
  const node = schema as Record<string, unknown>;
  const out: Record<string, { minimum?: unknown; maximum?: unknown }> = {};
  if (node.type === "integer") out[at] = { minimum: node.minimum, maximum: node.maximum };
  for (const [key, value] of Object.entries(node)) {
    if (key !== "default" && key !== "enum" && key !== "const")
      Object.assign(out, integerBounds(value, `${at}/${key}`));
  }
  return out;
}

const of = (name: string) => tools.find((t) => t.name === name) as Tool;

describe("tools/list of the notes, tickets and CRM packs", () => {
  it("has no ±9007199254740991 (the safe-integer bounds Zod gives every integer) anywhere", () => {
    expect(tools.length).toBeGreaterThanOrEqual(15);
    expect(JSON.stringify(tools)).not.toContain("9007199254740991");
    // Not vacuous: the packs publish plenty of integers, in input and output.
    const outputIntegers = tools.flatMap((t) => Object.keys(integerBounds(t.outputSchema)));
    expect(outputIntegers.length).toBeGreaterThanOrEqual(10);
  });

  it("keeps the bounds the packs set", () => {
    expect(integerBounds(of("search_tickets").inputSchema)["/properties/limit"]).toEqual({ minimum: 1, maximum: 50 });
    expect(integerBounds(of("get_ticket").inputSchema)["/properties/comments_limit"]).toEqual({
      minimum: 1,
      maximum: 100,
    });
    expect(integerBounds(of("crm_search_accounts").inputSchema)["/properties/limit"]).toEqual({
      minimum: 1,
      maximum: 100,
    });
    expect(integerBounds(of("update_note").inputSchema)["/properties/expected_version"]).toEqual({
      minimum: 1,
      maximum: 2_147_483_647,
    });
    expect(integerBounds(of("get_note").outputSchema)["/properties/words"]).toEqual({ minimum: 0, maximum: undefined });
    expect(integerBounds(of("get_ticket").outputSchema)["/properties/comment_count"]).toEqual({
      minimum: undefined,
      maximum: undefined,
    });
  });
});
