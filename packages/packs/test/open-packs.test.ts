import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectInMemory, createLogger, createServer, SqliteTaskStore } from "@toolshed/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPacks, PackConfigError, parsePackList } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolshed-packs-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("parsePackList", () => {
  it("reads a comma-separated list, ignoring case, spaces and repeats", () => {
    expect(parsePackList(" Notes, crm ,notes")).toEqual(["notes", "crm"]);
  });

  it("names unknown packs and the valid ones", () => {
    expect(() => parsePackList("notes,wiki")).toThrowError(PackConfigError);
    expect(() => parsePackList("notes,wiki")).toThrowError('unknown pack "wiki"; choose from notes, tickets, crm');
    expect(() => parsePackList(" , ")).toThrowError(
      "no packs given; use a comma-separated list of notes, tickets, crm",
    );
  });
});

describe("openPacks", () => {
  it("opens all three packs on one file with demo data, served by one server", async () => {
    const opened = await openPacks({ db: join(dir, "nested/demo.db"), demo: true });
    expect(opened.names).toEqual(["notes", "tickets", "crm"]);
    expect(await opened.ready()).toBe(true);
    const server = createServer({
      name: "all",
      version: "1",
      packs: opened.packs,
      logger: createLogger({ level: "silent" }),
    });
    const client = await connectInMemory(server);
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const tool of ["get_note", "search_tickets", "crm_search_accounts", "crm_bulk_update_tier"])
      expect(names).toContain(tool);
    const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(note.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    await client.close();
    await server.close();
    await opened.close();
    expect(await opened.ready()).toBe(false);
    await opened.close();
  });

  it("gives the tasks extension a connection of its own to the file, even with no pack; none when read-only", async () => {
    const file = join(dir, "new/tasks.db");
    const opened = await openPacks({ db: file, packs: [] });
    expect(await opened.ready()).toBe(true);
    const store = new SqliteTaskStore(opened.tasksDatabase as NonNullable<typeof opened.tasksDatabase>);
    const now = new Date().toISOString();
    const task = {
      taskId: "t1",
      owner: "",
      toolName: "x",
      status: "working" as const,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
    };
    await store.create(task);
    await opened.close();
    const again = await openPacks({ db: file, packs: [] });
    expect(
      await new SqliteTaskStore(again.tasksDatabase as NonNullable<typeof again.tasksDatabase>).get("t1", ""),
    ).toEqual(task);
    await again.close();
    const readOnly = await openPacks({ db: file, packs: ["notes"], demo: true, readOnly: true });
    expect(readOnly.tasksDatabase).toBeUndefined();
    await readOnly.close();
  });

  it("seeding twice adds nothing, and a subset opens only its packs", async () => {
    const file = join(dir, "demo.db");
    const first = await openPacks({ db: file, demo: true, packs: ["notes"] });
    await first.close();
    const second = await openPacks({ db: file, demo: true, packs: ["notes"] });
    expect(second.packs.map((p) => p.name)).toEqual(["notes"]);
    const server = createServer({
      name: "n",
      version: "1",
      packs: second.packs,
      logger: createLogger({ level: "silent" }),
    });
    const client = await connectInMemory(server);
    const page = await client.callTool({ name: "list_notes", arguments: { limit: 100 } });
    const titles = (page.structuredContent as { notes: Array<{ title: string }> }).notes.map((n) => n.title);
    expect(titles.filter((t) => t === "groceries")).toHaveLength(1);
    await client.close();
    await server.close();
    await second.close();
  });

  it("an unwritable path fails with a message that says what would work", async () => {
    await expect(openPacks({ db: "/proc/toolshed/demo.db" })).rejects.toThrowError(/choose a writable path/);
  });
});
