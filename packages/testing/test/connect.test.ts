import { definePack, defineTool } from "@toolshed/schema";
import { MemoryTaskStore } from "@toolshed/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connectPack, expectToolError, expectToolResult, PROTOCOL_ERAS } from "../src/index.js";
import { booksPack } from "./fixture.js";

describe.each(PROTOCOL_ERAS)("connectPack in the %s era", (era) => {
  it("calls a tool and lists the pack's tools", async () => {
    await using conn = await connectPack(booksPack(), { era });
    expect(conn.era).toBe(era);
    const result = await conn.call("get_book", { id: "dune" });
    expect(expectToolResult(result)).toEqual({ title: "Dune", year: 1965 });
    expect((result as { resultType?: unknown }).resultType).toBe(era === "2026-07-28" ? "complete" : undefined);
    expect((await conn.listTools()).map((t) => t.name)).toEqual(["get_book", "search_books", "add_book", "flaky"]);
  });

  it("throws a protocol error with its code and the server's message", async () => {
    await using conn = await connectPack(booksPack(), { era });
    const error = await conn.call("get_bok", {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "JsonRpcError", code: -32602 });
    expect((error as Error).message).toBe("Unknown tool: get_bok. Closest tools: get_book, add_book, flaky");
    const answer = await conn.answer("tools/call", { name: "get_bok" });
    expect("error" in answer && answer.error.code).toBe(-32602);
  });

  it("with scopes tools:read sees and calls only read-only tools", async () => {
    await using conn = await connectPack(booksPack(), { era, scopes: ["tools:read"] });
    expect((await conn.listTools()).map((t) => t.name)).toEqual(["get_book", "search_books", "flaky"]);
    expectToolError(await conn.call("add_book", { id: "x", title: "X" }), {
      code: "permission_denied",
      message: "your credentials allow read-only tools only",
    });
  });
});

describe("connectPack", () => {
  it("closes the packs with the connection unless told not to", async () => {
    let closed = 0;
    const close = () => {
      closed++;
    };
    {
      await using conn = await connectPack(booksPack({ close }));
      expectToolResult(await conn.call("search_books", { query: "e" }));
    }
    expect(closed).toBe(1);
    const conn = await connectPack(booksPack({ close }), { closePacks: false });
    await conn.close();
    await conn.close();
    expect(closed).toBe(1);
  });

  it("offers the official SDK client on the same server", async () => {
    await using conn = await connectPack(booksPack(), { era: "2026-07-28" });
    const viaSdk = await conn.client.callTool({ name: "get_book", arguments: { id: "emma" } });
    expect(expectToolResult(viaSdk)).toEqual({ title: "Emma", year: 1815 });
    const legacy = await conn.call("get_book", { id: "emma" }, { era: "2025-11-25" });
    expect("resultType" in legacy).toBe(false);
  });

  it("runs a tool as a task only for a request that declares the extension, on the store it is given", async () => {
    const pack = definePack({
      name: "sums",
      tools: [
        defineTool({
          name: "add",
          description: "Adds two numbers.",
          input: z.object({ a: z.number().describe("the first number"), b: z.number().describe("the second number") }),
          output: z.object({ sum: z.number().describe("a + b") }),
          task: "optional",
          handler: ({ a, b }) => ({ sum: a + b }),
        }),
      ],
    });
    const store = new MemoryTaskStore();
    await using conn = await connectPack(pack, { era: "2026-07-28", tasks: { store } });
    expect(expectToolResult(await conn.call("add", { a: 2, b: 3 }))).toEqual({ sum: 5 });
    const created = await conn.request("tools/call", { name: "add", arguments: { a: 2, b: 3 } }, { tasks: true });
    expect(created).toMatchObject({ resultType: "task" });
    let got = await conn.request("tasks/get", { taskId: created.taskId }, { tasks: true });
    for (let i = 0; i < 100 && got.status === "working"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      got = await conn.request("tasks/get", { taskId: created.taskId }, { tasks: true });
    }
    expect(got).toMatchObject({ status: "completed", result: { structuredContent: { sum: 5 } } });
    expect(await store.get(String(created.taskId), "")).toMatchObject({ status: "completed" });
  });
});
