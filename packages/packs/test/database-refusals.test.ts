import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteNotesStore } from "@toolshed/notes";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { openSqlite } from "@toolshed/storage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPacks, PackConfigError } from "../src/index.js";
import { DEMO_WRITES } from "./demo-writes.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolshed-refusals-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const snapshot = (file: string) => ({ sha: sha256(file), files: readdirSync(dir).sort() });

async function serve(opened: Awaited<ReturnType<typeof openPacks>>) {
  const server = createServer({
    name: "t",
    version: "1",
    packs: opened.packs,
    logger: createLogger({ level: "silent" }),
  });
  const client = await connectInMemory(server);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
      await opened.close();
    },
  };
}

/** A Toolshed database with demo data, closed (WAL mode, no -wal or -shm left). */
async function demoFile(name = "t.db"): Promise<string> {
  const file = join(dir, name);
  await (await openPacks({ db: file, demo: true })).close();
  return file;
}

/** A file as another tool leaves it: rollback journal, not WAL. */
function rollbackFile(file: string) {
  const db = openSqlite(file);
  db.pragma("journal_mode = DELETE");
  db.exec(
    "CREATE TABLE toolshed_migrations (scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (scope, version))",
  );
  return db;
}

function addVersion(file: string, scope: string, version: number) {
  const db = openSqlite(file);
  db.prepare("INSERT INTO toolshed_migrations VALUES (?, ?, 'from a newer release', '2030-01-01T00:00:00Z')").run(
    scope,
    version,
  );
  db.close();
}

describe("a database from a newer release", () => {
  it("is refused for every pack before anything is written: a file another tool made (rollback journal, tickets only)", async () => {
    const file = join(dir, "newer.db");
    const db = rollbackFile(file);
    db.exec("INSERT INTO toolshed_migrations VALUES ('tickets', 99, 'future', 'x')");
    db.close();
    const before = snapshot(file);
    const error = await openPacks({ db: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PackConfigError);
    expect((error as Error).message).toBe(
      `database ${file} has tickets schema version 99, newer than this release knows (5); upgrade Toolshed to a release that knows it, or use another database`,
    );
    // notes opens first: before the fix it switched the file to WAL and created its tables.
    expect(snapshot(file)).toEqual(before);
    const check = openSqlite(file, { readonly: true });
    expect(check.pragma("journal_mode", { simple: true })).toBe("delete");
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual([
      "toolshed_migrations",
    ]);
    check.close();
  });

  it("is refused without a trace: a closed Toolshed file (WAL) keeps its bytes and gets no -wal or -shm", async () => {
    const file = await demoFile();
    addVersion(file, "crm", 7);
    const before = snapshot(file);
    expect(before.files).toEqual(["t.db"]);
    await expect(openPacks({ db: file, readOnly: true })).rejects.toThrowError(
      /has crm schema version 7, newer than this release knows \(4\); upgrade Toolshed/,
    );
    await expect(openPacks({ db: file, demo: true })).rejects.toThrowError(/has crm schema version 7/);
    expect(snapshot(file)).toEqual(before);
  });

  it("packs that are not opened are not checked", async () => {
    const file = await demoFile();
    addVersion(file, "crm", 7);
    const opened = await openPacks({ db: file, packs: ["notes", "tickets"] });
    expect(opened.names).toEqual(["notes", "tickets"]);
    await opened.close();
  });
});

describe("readOnly", () => {
  it("opens a current file without writing to it: reads work, every write tool is a clear, not retryable error", async () => {
    const file = await demoFile();
    const before = sha256(file);
    const opened = await openPacks({ db: file, readOnly: true });
    const { client, close } = await serve(opened);
    const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(note.structuredContent).toMatchObject({ title: "groceries" });
    for (const [name, args] of DEMO_WRITES) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      expect(result._meta?.["toolshed.dev/error"], name).toMatchObject({
        kind: "tool",
        code: "failed_precondition",
        retryable: false,
      });
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? "";
      const said = text.startsWith(`Error executing tool ${name}: the database is read-only, so nothing was changed`);
      // A bulk tool says it of each record it could not change.
      const bulk = name === "crm_bulk_update_tier" || name === "bulk_update_ticket_status";
      const batch = bulk && text.includes("the database is read-only");
      expect(said || batch, `${name}: ${text}`).toBe(true);
    }
    await close();
    expect(sha256(file)).toBe(before);
  });

  it("refuses a file that does not exist, or whose tables need upgrading, saying what to do", async () => {
    const missing = join(dir, "missing.db");
    await expect(openPacks({ db: missing, readOnly: true })).rejects.toThrowError(
      `database ${missing} does not exist; --read-only serves an existing database: start once without --read-only (or with --demo) to create it`,
    );
    expect(readdirSync(dir)).toEqual([]);

    const old = join(dir, "old.db");
    const db = rollbackFile(old);
    for (const m of SqliteNotesStore.schema.migrations.slice(0, 3)) {
      if (typeof m.up === "string") db.exec(m.up);
      db.prepare("INSERT INTO toolshed_migrations VALUES ('notes', ?, ?, 'x')").run(m.version, m.name);
    }
    db.close();
    const before = snapshot(old);
    await expect(openPacks({ db: old, readOnly: true, packs: ["notes"] })).rejects.toThrowError(
      `database ${old} has notes schema version 3, older than this release needs (5); --read-only does not upgrade it: start once without --read-only to upgrade it`,
    );
    await expect(openPacks({ db: old, readOnly: true, packs: ["tickets"] })).rejects.toThrowError(
      `database ${old} has no tickets tables yet; --read-only does not create them: start once without --read-only to create them`,
    );
    expect(snapshot(old)).toEqual(before);
  });

  it("with demo, seeds a new file first, then serves it read-only", async () => {
    const file = join(dir, "demo.db");
    const opened = await openPacks({ db: file, readOnly: true, demo: true });
    const { client, close } = await serve(opened);
    const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(note.structuredContent).toMatchObject({ title: "groceries" });
    const write = await client.callTool({ name: "create_note", arguments: { title: "x", body: "y" } });
    expect(write._meta?.["toolshed.dev/error"]).toMatchObject({ code: "failed_precondition" });
    await close();
  });

  it(":memory: stays writable (it would be empty otherwise)", async () => {
    const opened = await openPacks({ db: ":memory:", readOnly: true, demo: true, packs: ["notes"] });
    const { client, close } = await serve(opened);
    const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(note.structuredContent).toMatchObject({ title: "groceries" });
    await close();
  });
});

describe("idempotency keys expire", () => {
  it("a demo database seeded more than a day ago is not seeded twice", async () => {
    const file = await demoFile();
    const db = openSqlite(file);
    const tickets = () => db.prepare("SELECT COUNT(*) FROM tickets").pluck().get();
    const counted = tickets();
    // The demo tickets' fixed keys are older than the retention now.
    db.prepare("UPDATE toolshed_idempotency SET created_at = '2000-01-01T00:00:00.000Z'").run();
    await (await openPacks({ db: file, demo: true })).close();
    expect(tickets()).toBe(counted);
    db.close();
  });

  it("idempotencyRetentionMs reaches every store", async () => {
    const file = join(dir, "retention.db");
    const opened = await openPacks({ db: file, idempotencyRetentionMs: 60_000 });
    const { client, close } = await serve(opened);
    const create = () =>
      client.callTool({
        name: "create_ticket",
        arguments: { title: "Same request", body: "b", priority: "low", idempotency_key: "k-1" },
      });
    const first = (await create()).structuredContent as { id: string };
    expect(((await create()).structuredContent as { id: string }).id).toBe(first.id);
    const raw = openSqlite(file);
    raw.prepare("UPDATE toolshed_idempotency SET created_at = ?").run(new Date(Date.now() - 61_000).toISOString());
    raw.close();
    expect(((await create()).structuredContent as { id: string }).id).not.toBe(first.id);
    await close();
    await expect(openPacks({ db: file, idempotencyRetentionMs: 0 })).rejects.toThrowError(
      /idempotencyRetentionMs must be a whole number of milliseconds of 1 or more/,
    );
  });
});
