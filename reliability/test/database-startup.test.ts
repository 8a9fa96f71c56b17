import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, copyFileSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openPacks, redactDatabaseUrl } from "@toolshed/packs";
import { openSqlite } from "@toolshed/storage";
import { createPgPool, createTestSchema, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CI, nodeLine } from "../../node-lines/test/lines.js";
import { DEMO_WRITES } from "../../packages/packs/test/demo-writes.js";
import { postgresReachable } from "./support/databases.js";
import { HttpChild } from "./support/http-child.js";
import { HTTP_CLI, STDIO_CLI } from "./support/paths.js";
import { tempDir } from "./support/temp-db.js";

// Start-up refusals of a database, and writes to one that turned read-only: the same cases, with
// the same messages after the bin's name, for toolshed-stdio and toolshed-http.

const reachable = await postgresReachable();

const READ_ONLY_TOOLS = [
  "get_note",
  "search_notes",
  "list_notes",
  "search_tickets",
  "get_ticket",
  "crm_search_accounts",
  "crm_get_account",
];

const temps: Array<{ remove(): void }> = [];
const folders: string[] = [];
const clients: Client[] = [];
const children = new Set<ChildProcess>();
const servers: HttpChild[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await Promise.allSettled(servers.splice(0).map((s) => s.stop()));
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  // A folder made read-only for a test must be removable again (when not running as root).
  for (const folder of folders.splice(0)) chmodSync(folder, 0o755);
  for (const temp of temps.splice(0)) temp.remove();
});

/** A fresh folder, removed after the test. */
function folder(): string {
  const temp = tempDir("database-startup");
  temps.push(temp);
  return temp.dir;
}

/** No TOOLSHED_* from the machine, and HOME in a temp folder so no default database lands in the real home. */
const cleanEnv = () => ({ PATH: process.env.PATH ?? "", HOME: folder() });

// chmod does not stop root from writing, so as root the server runs as nobody (uid 65534).
const AS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

/**
 * As root, the read-only cases need uid 65534 to be able to run the bin: a checkout in a folder
 * it cannot read (a private home) makes that impossible, and the cases say so instead of failing.
 */
function otherCanRun(cli: string): boolean {
  const ok =
    !AS_ROOT ||
    spawnSync(process.execPath, [cli, "--version"], { uid: NOBODY, gid: NOBODY, stdio: "ignore" }).status === 0;
  if (!ok) {
    process.stderr.write(
      `read-only database tests SKIPPED: uid ${NOBODY} cannot run ${cli} (its folder is private to root)\n`,
    );
  }
  return ok;
}

interface Options {
  /** Run as uid 65534 when the tests run as root. */
  asOther?: boolean;
  /** The Node binary (default: the one running the tests). */
  node?: string;
}

/** Runs a bin to its end (stdin closed), as another user when asked and the tests run as root. */
function runToExit(argv: string[], options: Options) {
  const other = options.asOther && AS_ROOT ? { uid: NOBODY, gid: NOBODY } : {};
  const child = spawn(options.node ?? process.execPath, argv, {
    env: cleanEnv(),
    stdio: ["pipe", "pipe", "pipe"],
    ...other,
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  child.stdin.end();
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code) => {
      children.delete(child);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** One bin under test. */
interface Target {
  name: "toolshed-stdio" | "toolshed-http";
  otherCanRun: boolean;
  /** Exit 2, nothing on stdout, exactly this one line (after the bin's name) on stderr. */
  expectRefused(args: string[], line: string, options?: Options): Promise<void>;
  /** The SDK Client on the running bin; closing it ends the server. */
  serve(args: string[], options?: Options): Promise<Client>;
}

function refuser(name: Target["name"], argv: string[]): Target["expectRefused"] {
  return async (args, line, options = {}) => {
    const result = await runToExit([...argv, ...args, "--log-level", "silent"], options);
    expect(result).toEqual({ code: 2, stdout: "", stderr: `${name}: ${line}\n` });
  };
}

const newClient = () => {
  const client = new Client({ name: "database-startup", version: "1.0.0" });
  clients.push(client);
  return client;
};

const stdio: Target = {
  name: "toolshed-stdio",
  otherCanRun: otherCanRun(STDIO_CLI),
  expectRefused: refuser("toolshed-stdio", [STDIO_CLI]),
  async serve(args, options = {}) {
    const bin = [options.node ?? process.execPath, STDIO_CLI, ...args];
    // The SDK transport spawns with no uid option, so as root setpriv drops to nobody.
    const command =
      options.asOther && AS_ROOT
        ? ["setpriv", "--reuid", String(NOBODY), "--regid", String(NOBODY), "--clear-groups", ...bin]
        : bin;
    const transport = new StdioClientTransport({
      command: command[0] as string,
      args: command.slice(1),
      env: cleanEnv(),
      stderr: "ignore",
    });
    const client = newClient();
    await client.connect(transport);
    return client;
  },
};

const http: Target = {
  name: "toolshed-http",
  otherCanRun: otherCanRun(HTTP_CLI),
  expectRefused: refuser("toolshed-http", [HTTP_CLI, "--port", "0"]),
  async serve(args, options = {}) {
    const other = options.asOther && AS_ROOT ? { uid: NOBODY, gid: NOBODY } : {};
    const server = await HttpChild.start(args, { env: cleanEnv(), node: options.node, ...other });
    servers.push(server);
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    // As with stdio, where closing the client ends the server.
    const close = client.close.bind(client);
    client.close = async () => {
      await close();
      await server.stop();
    };
    return client;
  },
};

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const snapshot = (dir: string, file: string) => ({ sha: sha256(file), files: readdirSync(dir).sort() });

/** A closed Toolshed database with the demo data (WAL mode; no -wal or -shm left). */
async function demoDatabase(): Promise<{ dir: string; file: string }> {
  const dir = folder();
  const file = join(dir, "toolshed.db");
  await (await openPacks({ db: file, demo: true })).close();
  return { dir, file };
}

describe.each([stdio, http])("$name", ({ expectRefused, serve, otherCanRun }) => {
  describe("a database written by a newer release", () => {
    it("is refused before anything is written: exit 2, the file, what is wrong and what works; same bytes, no -wal or -shm", async () => {
      // As another tool leaves a file: rollback journal, and only the tickets tables (at version 99).
      const dir = folder();
      const file = join(dir, "newer.db");
      const db = openSqlite(file);
      db.pragma("journal_mode = DELETE");
      db.exec(
        "CREATE TABLE toolshed_migrations (scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (scope, version))",
      );
      db.exec("INSERT INTO toolshed_migrations VALUES ('tickets', 99, 'future', '2030-01-01T00:00:00Z')");
      db.close();
      const before = snapshot(dir, file);
      await expectRefused(
        ["--db", file],
        `database ${file} has tickets schema version 99, newer than this release knows (5); upgrade Toolshed to a release that knows it, or use another database`,
      );
      expect(snapshot(dir, file)).toEqual(before);
    });

    it("a closed Toolshed file (WAL) gets no -wal or -shm, with or without --read-only", async () => {
      const { dir, file } = await demoDatabase();
      const db = openSqlite(file);
      db.prepare("INSERT INTO toolshed_migrations VALUES ('crm', 7, 'future', '2030-01-01T00:00:00Z')").run();
      db.close();
      const before = snapshot(dir, file);
      expect(before.files).toEqual(["toolshed.db"]);
      const line = `database ${file} has crm schema version 7, newer than this release knows (4); upgrade Toolshed to a release that knows it, or use another database`;
      await expectRefused(["--db", file], line);
      await expectRefused(["--db", file, "--read-only"], line);
      expect(snapshot(dir, file)).toEqual(before);
    });
  });

  describe.skipIf(!reachable)("a PostgreSQL database written by a newer release", () => {
    let db: TestSchema;
    beforeAll(async () => {
      db = await createTestSchema();
    });
    afterAll(() => db?.drop());

    it("is refused before any pack creates a table: exit 2, the URL without its password, what works", async () => {
      await db
        .pool()
        .query(
          "CREATE TABLE toolshed_migrations (scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (scope, version))",
        );
      await db.pool().query("INSERT INTO toolshed_migrations (scope, version, name) VALUES ('tickets', 99, 'future')");
      const url = `${db.url}?options=${encodeURIComponent(`-c search_path=${db.schema}`)}`;
      await expectRefused(
        ["--database-url", url],
        `database ${redactDatabaseUrl(url)} has tickets schema version 99, newer than this release knows (4); upgrade Toolshed to a release that knows it, or use another database`,
      );
      const tables = await db
        .pool()
        .query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [db.schema]);
      expect(tables.rows.map((r) => r.table_name)).toEqual(["toolshed_migrations"]);
    });
  });

  describe.skipIf(!otherCanRun)(
    `a database the server cannot write (${AS_ROOT ? "run as uid 65534, since root ignores file modes" : "chmod"})`,
    () => {
      it("a read-only file: exit 2 naming the file and the fix; nothing written", async () => {
        const { dir, file } = await demoDatabase();
        chmodSync(file, 0o444);
        chmodSync(dir, 0o777);
        const before = snapshot(dir, file);
        await expectRefused(
          ["--db", file],
          `database ${file} is read-only for this process: the file cannot be written (EACCES); make it writable by the user running the server, or start with --read-only to serve only the read-only tools`,
          { asOther: true },
        );
        expect(snapshot(dir, file)).toEqual(before);
      });

      it("a writable file in a read-only folder (SQLite cannot create its -wal there): exit 2 naming the folder", async () => {
        const { dir, file } = await demoDatabase();
        chmodSync(file, 0o666);
        chmodSync(dir, 0o555);
        folders.push(dir);
        await expectRefused(
          ["--db", file],
          `database ${file} cannot be written: its folder ${dir} cannot be written (EACCES), and SQLite creates its -wal and -shm files there; make the folder writable by the user running the server`,
          { asOther: true },
        );
      });

      it.each([
        ["a WAL file, read-only, in a writable folder", "wal", 0o777],
        ["a rollback-journal file, read-only, in a read-only folder", "delete", 0o555],
      ])("--read-only serves %s: reads work, the file keeps its bytes", async (_name, journal, folderMode) => {
        const { dir, file } = await demoDatabase();
        if (journal === "delete") {
          const db = openSqlite(file);
          db.pragma("journal_mode = DELETE");
          db.close();
        }
        chmodSync(file, 0o444);
        chmodSync(dir, folderMode);
        folders.push(dir);
        const before = sha256(file);
        const client = await serve(["--db", file, "--read-only"], { asOther: true });
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(READ_ONLY_TOOLS);
        const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
        expect(note.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
        await client.close();
        expect(sha256(file)).toBe(before);
      });

      it("--read-only refuses a file that does not exist, and one whose tables need upgrading", async () => {
        const dir = folder();
        const missing = join(dir, "missing.db");
        await expectRefused(
          ["--db", missing, "--read-only"],
          `database ${missing} does not exist; --read-only serves an existing database: start once without --read-only (or with --demo) to create it`,
        );
        expect(readdirSync(dir)).toEqual([]);
        const { dir: older, file } = await demoDatabase();
        const db = openSqlite(file);
        db.prepare("DELETE FROM toolshed_migrations WHERE scope = 'notes' AND version = 5").run();
        db.close();
        const before = snapshot(older, file);
        await expectRefused(
          ["--db", file, "--read-only"],
          `database ${file} has notes schema version 4, older than this release needs (5); --read-only does not upgrade it: start once without --read-only to upgrade it`,
        );
        expect(snapshot(older, file)).toEqual(before);
      });

      it("--read-only on a WAL file in a read-only folder with better-sqlite3: exit 2, saying why and what works", async () => {
        const { dir, file } = await demoDatabase();
        chmodSync(dir, 0o555);
        folders.push(dir);
        const before = snapshot(dir, file);
        await expectRefused(
          ["--db", file, "--read-only", "--sqlite-driver", "better-sqlite3"],
          `database ${file} cannot be read here: it is in WAL mode and its folder is not writable, so SQLite cannot create its -shm file, and better-sqlite3 cannot open a file immutable; use the node:sqlite driver (Node 22.16 or later), make the folder writable, or switch the file to rollback journal mode before making it read-only (sqlite3 FILE "PRAGMA journal_mode=DELETE")`,
          { asOther: true },
        );
        expect(snapshot(dir, file)).toEqual(before);
      });

      // node:sqlite needs Node 22.16 or later: the Node 24 binary of the node-lines holder.
      const node24 = nodeLine(24);
      it.skipIf(!("bin" in node24) && !CI)(
        "--read-only serves a WAL file in a read-only folder on node:sqlite (opened immutable): reads work, nothing written",
        async () => {
          if (!("bin" in node24)) throw new Error(node24.problem);
          const { dir, file } = await demoDatabase();
          chmodSync(file, 0o444);
          chmodSync(dir, 0o555);
          folders.push(dir);
          const before = snapshot(dir, file);
          const client = await serve(["--db", file, "--read-only"], { asOther: true, node: node24.bin });
          expect((await client.listTools()).tools.map((t) => t.name)).toEqual(READ_ONLY_TOOLS);
          const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
          expect(note.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
          const found = await client.callTool({ name: "search_tickets", arguments: { query: "login" } });
          expect(found.isError).toBeFalsy();
          await client.close();
          expect(snapshot(dir, file)).toEqual(before);
        },
      );

      it("--read-only refuses a WAL file in a read-only folder whose -wal holds changes: they would be missed", async () => {
        const { dir, file } = await demoDatabase();
        // A -wal left by a writer that stopped before it could fold the changes in (no -shm).
        const writer = openSqlite(file);
        writer.pragma("wal_autocheckpoint = 0");
        writer.prepare("UPDATE notes SET body = 'milk, eggs, bread' WHERE title = 'groceries'").run();
        copyFileSync(`${file}-wal`, `${file}-wal.kept`);
        writer.close();
        renameSync(`${file}-wal.kept`, `${file}-wal`);
        chmodSync(dir, 0o555);
        folders.push(dir);
        await expectRefused(
          ["--db", file, "--read-only"],
          `database ${file} cannot be read here: its folder is not writable and it has a -wal file, which may hold changes the database file does not, and which SQLite cannot read without a -shm file there; open it once where the folder is writable (closing folds the -wal file in), then make the folder read-only`,
          { asOther: true },
        );
      });
    },
  );

  // SQLite notices a moved file only in rollback-journal mode, and a file's mode is checked when it
  // is opened: a running server's SQLite file does not turn read-only. A PostgreSQL database does
  // (a failover to a standby, a role set read-only): here a role is set read-only while serving.
  describe.skipIf(!reachable)("a PostgreSQL database that turns read-only while the server runs", () => {
    const role = `toolshed_ro_${randomBytes(4).toString("hex")}`;
    const admin = createPgPool(TEST_DATABASE_URL, { max: 1 });
    let db: TestSchema;
    let url: string;
    const readOnlyRole = async () => {
      await admin.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", [role]);
    };
    beforeAll(async () => {
      db = await createTestSchema();
      // unaccent lives in public, where this role may not create it.
      await admin.query("CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public");
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`GRANT ALL ON SCHEMA ${db.schema} TO ${role}`);
      const parsed = new URL(TEST_DATABASE_URL);
      parsed.username = role;
      parsed.searchParams.set("options", `-c search_path=${db.schema}`);
      url = parsed.toString();
      await (await openPacks({ databaseUrl: url, demo: true })).close();
    });
    afterAll(async () => {
      await db?.drop();
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    });

    it("every pack's write tools are a clear, not retryable tool error, and reads go on", async () => {
      await admin.query(`ALTER ROLE ${role} RESET default_transaction_read_only`);
      const client = await serve(["--database-url", url]);
      const read = () => client.callTool({ name: "get_note", arguments: { title: "groceries" } });
      expect((await read()).structuredContent).toMatchObject({ title: "groceries" });

      await readOnlyRole();
      // The pool drops the terminated connections; a call in between may be a retryable `unavailable`.
      for (let i = 0; i < 50 && (await read()).isError; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await read()).structuredContent).toMatchObject({ title: "groceries" });

      for (const [name, args] of DEMO_WRITES) {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, name).toBe(true);
        expect(result._meta?.["toolshed.dev/error"], name).toMatchObject({
          kind: "tool",
          code: "failed_precondition",
          retryable: false,
        });
        expect(JSON.stringify(result.content), name).toContain("the database is read-only, so nothing was changed");
      }
      expect((await read()).structuredContent).toMatchObject({ title: "groceries" });
    });

    it("read-only from the start: exit 2 naming the database and --read-only; with --read-only it serves", async () => {
      await readOnlyRole();
      await expectRefused(
        ["--database-url", url],
        `database ${redactDatabaseUrl(url)} is read-only (cannot execute CREATE TABLE in a read-only transaction: a read-only role, setting or standby); start with --read-only to serve only the read-only tools, or use a writable database`,
      );
      const client = await serve(["--database-url", url, "--read-only"]);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(READ_ONLY_TOOLS);
      const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
      expect(note.structuredContent).toMatchObject({ title: "groceries" });
    });
  });
});
