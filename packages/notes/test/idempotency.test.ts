import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connectInMemory, createServer } from "@toolshed/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { notesPack } from "../src/pack.js";
import { SqliteNotesStore } from "../src/sqlite/store.js";
import { captureLogger, errorMeta, type Harness, startHarness, text } from "./helpers.js";

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});

afterEach(async () => {
  await h.close();
});

const note = { title: "standup", body: "Ana: billing export. Ben: staging migration.", tags: ["work"] };

describe("create_note with idempotency_key", () => {
  it("20 concurrent calls with one key through the Client: one note, every answer equal", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => h.call("create_note", { ...note, idempotency_key: "standup-2025-03-03" })),
    );
    for (const result of results) {
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(results[0]?.structuredContent);
      expect(result.content).toEqual(results[0]?.content);
    }
    expect(results[0]?.structuredContent).toMatchObject({ title: "standup", version: 1 });
    expect((await h.call("list_notes")).structuredContent).toEqual({
      notes: [{ title: "standup", tags: ["work"], updated_at: "2025-03-01T09:00:00.000Z" }],
      next_cursor: null,
    });
  });

  it("a retry after success answers the first result, not a title conflict", async () => {
    const first = await h.call("create_note", { ...note, idempotency_key: "k" });
    const retry = await h.call("create_note", { ...note, idempotency_key: "k" });
    expect(retry.isError).toBeFalsy();
    expect(retry.structuredContent).toEqual(first.structuredContent);
    const withoutKey = await h.call("create_note", note);
    expect(text(withoutKey)).toBe(
      "Error executing tool create_note: A note titled 'standup' already exists; use update_note to change it",
    );
  });

  it("the same key with other arguments is a conflict and writes nothing", async () => {
    await h.call("create_note", { ...note, idempotency_key: "k" });
    const other = await h.call("create_note", { title: "other", body: "x", idempotency_key: "k" });
    expect(text(other)).toBe(
      "Error executing tool create_note: idempotency_key 'k' was already used with different arguments; use a new key for a new request, or repeat the original arguments",
    );
    expect(errorMeta(other)).toEqual({ kind: "tool", code: "conflict", retryable: false });
    expect(await h.store.getNote("other")).toBeUndefined();
  });

  it("the key is trimmed and bounded", async () => {
    const first = await h.call("create_note", { ...note, idempotency_key: " k " });
    expect((await h.call("create_note", { ...note, idempotency_key: "k" })).structuredContent).toEqual(
      first.structuredContent,
    );
    expect(text(await h.call("create_note", { ...note, idempotency_key: "k".repeat(201) }))).toBe(
      "Invalid arguments for tool create_note:\nidempotency_key: must be at most 200 characters (got 201)",
    );
  });

  it("two servers with their own store on the same file: racing calls with one key make one note", async () => {
    const second = SqliteNotesStore.open(h.file);
    const logs = captureLogger();
    const server = createServer({
      name: "second",
      version: "1",
      packs: [notesPack({ store: second })],
      logger: logs.logger,
    });
    const client = await connectInMemory(server);
    const calls: Array<Promise<CallToolResult>> = [];
    for (let i = 0; i < 20; i++) {
      const args = { ...note, idempotency_key: "shared-key" };
      calls.push(
        i % 2 === 0
          ? h.call("create_note", args)
          : (client.callTool({ name: "create_note", arguments: args }) as Promise<CallToolResult>),
      );
    }
    const results = await Promise.all(calls);
    for (const result of results) expect(result.structuredContent).toEqual(results[0]?.structuredContent);
    expect((await second.listNotes({ limit: 10 })).notes.map((n) => n.title)).toEqual(["standup"]);
    await client.close();
    await server.close();
    await second.close();
  });
});

describe("pack lifecycle", () => {
  it("the server leaves the store open by default and closes it with closeStore: true", async () => {
    const tmp = join(h.file, "..", "own.db");
    const store = SqliteNotesStore.open(tmp);
    const logs = captureLogger();
    const kept = createServer({ name: "k", version: "1", packs: [notesPack({ store })], logger: logs.logger });
    await kept.close();
    expect(await store.createNote({ title: "still open", body: "" })).toMatchObject({ version: 1 });
    const owning = createServer({
      name: "o",
      version: "1",
      packs: [notesPack({ store, closeStore: true })],
      logger: logs.logger,
    });
    await owning.close();
    await expect(store.getNote("still open")).rejects.toThrow();
  });
});
