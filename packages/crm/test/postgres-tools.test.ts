// The pack's tools on the PostgreSQL store, through a real SDK Client: what a model would see.

import { connect, createServer as createTcpServer, type Socket, type Server as TcpServer } from "node:net";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connectInMemory, createServer } from "@toolshed/server";
import {
  createTestSchema,
  type PgPool,
  pgReachable,
  TEST_DATABASE_URL,
  type TestSchema,
} from "@toolshed/storage/postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CrmStore, crmPack, SqliteCrmStore, seedDemo } from "../src/index.js";
import { PostgresCrmStore, type PostgresCrmStoreOptions } from "../src/postgres/index.js";
import { captureLogger, errorMeta, text } from "./helpers.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL tool tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

/** The pack on one store, served by a Toolshed server, with a connected SDK Client. */
async function serve(store: CrmStore, timeoutMs = 20_000) {
  const server = createServer({
    name: "crm-pg-test",
    version: "1.0.0",
    packs: [crmPack({ store, closeStore: true, timeoutMs })],
    logger: captureLogger().logger,
  });
  const client = await connectInMemory(server);
  return {
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** A loopback TCP proxy in front of PostgreSQL that can stop answering or stop listening. */
async function startProxy(target: URL) {
  const sockets = new Set<Socket>();
  let mode: "forward" | "silent" = "forward";
  const server: TcpServer = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    if (mode === "silent") return; // accepted, never answered
    const up = connect(Number(target.port || 5432), target.hostname);
    sockets.add(up);
    up.on("close", () => {
      sockets.delete(up);
      socket.destroy();
    });
    up.on("error", () => socket.destroy());
    socket.on("close", () => up.destroy());
    socket.pipe(up).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(target.href);
  url.host = `127.0.0.1:${port}`;
  const dropAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: url.href,
    /** New connections are accepted and never answered; open ones are cut. */
    silence() {
      mode = "silent";
      dropAll();
    },
    /** Nothing listens on the port any more: connections are refused. */
    async stop() {
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(!reachable)("CRM tools on PostgreSQL", () => {
  let db: TestSchema;
  const opened: CrmStore[] = [];
  const open = async (options: PostgresCrmStoreOptions = {}, url?: string) => {
    const store = await PostgresCrmStore.open(url ?? db.url, { schema: db.schema, ...options });
    opened.push(store);
    return store;
  };

  beforeAll(async () => {
    db = await createTestSchema();
    await seedDemo(await open());
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
  });
  afterAll(() => db.drop());

  it("searches with ranking, [marked] snippets and cursors, finding what the SQLite store finds", async () => {
    const pg = await serve(await open());
    const sqliteStore = SqliteCrmStore.open(":memory:");
    await seedDemo(sqliteStore);
    const lite = await serve(sqliteStore);
    try {
      const first = await pg.call("crm_search_accounts", { query: "logistics", tier: "growth", limit: 2 });
      expect(first.isError).toBeFalsy();
      const page = first.structuredContent as {
        count: number;
        accounts: Array<{ id: string; name: string; tier: string; snippet: string }>;
        next_cursor: string | null;
      };
      expect(page.count).toBe(2);
      for (const account of page.accounts) {
        expect(account.tier).toBe("growth");
        expect(account.snippet).toMatch(/\[logistics\]/i);
      }
      // Name matches rank first: both accounts on the first page have "Logistics" in their name.
      expect(page.accounts.map((a) => a.name).every((n) => /logistics/i.test(n))).toBe(true);

      const ids = async (client: typeof pg, query: string) => {
        const found: string[] = [];
        let cursor: string | undefined;
        for (let pages = 0; pages < 20; pages++) {
          const result = await client.call("crm_search_accounts", { query, limit: 3, ...(cursor ? { cursor } : {}) });
          expect(result.isError).toBeFalsy();
          const sc = result.structuredContent as { accounts: Array<{ id: string }>; next_cursor: string | null };
          found.push(...sc.accounts.map((a) => a.id));
          if (!sc.next_cursor) break;
          cursor = sc.next_cursor;
        }
        return found;
      };
      for (const query of ["logistics", "acme", "renewal q3", "globex.io", "sso"]) {
        const fromPg = await ids(pg, query);
        expect(new Set(fromPg).size).toBe(fromPg.length);
        expect(fromPg.sort(), query).toEqual((await ids(lite, query)).sort());
      }
    } finally {
      await pg.close();
      await lite.close();
    }
  });

  it("20 racing creates with one idempotency_key on two instances (two pools) make exactly one account", async () => {
    const [a, b] = [await serve(await open({ max: 5 })), await serve(await open({ max: 5 }))];
    try {
      const args = { name: "Raced Industries", tier: "growth", arr: 77_000, idempotency_key: "race-two-instances" };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).call("crm_create_account", args)),
      );
      for (const result of results) expect(result.isError, text(result)).toBeFalsy();
      expect(new Set(results.map((r) => JSON.stringify(r.structuredContent))).size).toBe(1);
      const rows = await db.pool().query("SELECT id FROM crm_accounts WHERE name_key = 'raced industries'");
      expect(rows.rows).toHaveLength(1);
      expect((results[0]?.structuredContent as { id: string } | undefined)?.id).toBe(rows.rows[0].id);

      // Without a key, the second instance is told the name is taken, naming the first account.
      const taken = await b.call("crm_create_account", { name: "raced  INDUSTRIES", tier: "startup", arr: 1 });
      expect(taken.isError).toBe(true);
      expect(text(taken)).toContain(`An account named 'raced INDUSTRIES' already exists: ${rows.rows[0].id}`);
      expect(errorMeta(taken)).toMatchObject({ kind: "tool", code: "conflict", retryable: false });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a statement timeout reaches the caller as a retryable timeout, never as an internal error", async () => {
    const pg = await serve(await open({ statementTimeoutMs: 300 }), 30_000);
    const locker = await (db.pool() as PgPool).connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE crm_accounts IN ACCESS EXCLUSIVE MODE");
      for (const [name, args] of [
        ["crm_get_account", { account_id: "acc_1001" }],
        ["crm_search_accounts", { query: "acme" }],
        ["crm_create_account", { name: "Blocked Ltd", tier: "startup", arr: 1, idempotency_key: "blocked" }],
      ] as const) {
        const result = await pg.call(name, args);
        expect(result.isError, name).toBe(true);
        expect(errorMeta(result), name).toMatchObject({ kind: "tool", code: "timeout", retryable: true });
        // A classified driver error keeps a ref, so the server log entry can be found.
        expect(text(result)).toMatch(
          new RegExp(
            `^Error executing tool ${name}: the database query timed out \\(ref [0-9a-f]{8}\\); temporary failure, safe to retry$`,
          ),
        );
      }
    } finally {
      await locker.query("ROLLBACK");
      locker.release();
    }
    // Once the lock is gone the same calls succeed, and the timed-out create left no key behind.
    expect((await pg.call("crm_get_account", { account_id: "acc_1001" })).isError).toBeFalsy();
    const created = await pg.call("crm_create_account", {
      name: "Blocked Ltd",
      tier: "startup",
      arr: 1,
      idempotency_key: "blocked",
    });
    expect(created.isError, text(created)).toBeFalsy();
    await pg.close();
  });

  it("a database that stops answering, or refuses connections, is a retryable 'unavailable'", async () => {
    const proxy = await startProxy(new URL(db.url));
    const pg = await serve(await open({ connectionTimeoutMs: 1000 }, proxy.url));
    try {
      expect((await pg.call("crm_get_account", { account_id: "acc_1001" })).isError).toBeFalsy();
      proxy.silence();
      const silent = await pg.call("crm_get_account", { account_id: "acc_1001" });
      expect(errorMeta(silent)).toMatchObject({ kind: "tool", code: "unavailable", retryable: true });
      expect(text(silent)).toBe(
        "Error executing tool crm_get_account: the CRM database could not be reached; temporary failure, safe to retry",
      );
      await proxy.stop();
      const refused = await pg.call("crm_search_accounts", { query: "acme" });
      expect(errorMeta(refused)).toMatchObject({ kind: "tool", code: "unavailable", retryable: true });
      expect(text(refused)).toMatch(
        /^Error executing tool crm_search_accounts: a service this tool depends on could not be reached \(ref [0-9a-f]{8}\); temporary failure, safe to retry$/,
      );
    } finally {
      await pg.close();
      await proxy.stop().catch(() => {});
    }
  });
});
