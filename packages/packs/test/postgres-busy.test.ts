import { createServer as createTcpServer, type Socket, connect as tcpConnect } from "node:net";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPacks } from "../src/index.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

const BUSY =
  "the database is busy: every connection to it was in use by other calls and none came free in time; try again shortly";

/** A TCP relay to PostgreSQL that can be cut, as a database host that goes away. */
async function startRelay(target: URL) {
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    const upstream = tcpConnect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    async cut() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

describe.skipIf(!reachable)("PostgreSQL busy or unreachable (issue 18 item 8)", () => {
  let db: TestSchema;
  beforeAll(async () => {
    db = await createTestSchema();
  });
  afterAll(() => db?.drop());

  it("a locked table makes callers wait: they hear 'busy', not 'connection lost', and the instance stays ready (busy)", async () => {
    const opened = await openPacks({
      databaseUrl: db.url,
      databaseSchema: db.schema,
      packs: ["notes"],
      demo: true,
      poolMax: 2,
    });
    const server = createServer({
      name: "t",
      version: "1",
      packs: opened.packs,
      logger: createLogger({ level: "silent" }),
    });
    const client = await connectInMemory(server);
    const locker = db.pool({ max: 1, statementTimeoutMs: 0 });
    const lock = await locker.connect();
    try {
      expect(await opened.readiness()).toEqual({ ready: true });
      await lock.query("BEGIN");
      await lock.query(`LOCK TABLE ${db.schema}.notes IN ACCESS EXCLUSIVE MODE`);
      const calls = Array.from({ length: 6 }, () =>
        client.callTool({ name: "get_note", arguments: { title: "groceries" } }),
      );
      for (const call of calls) call.catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await opened.readiness()).toEqual({
        ready: true,
        database: "busy",
        reason:
          "the database is busy: all 2 connections of this instance are in use and 4 calls are waiting for one; calls may be slow or fail as busy",
      });
      // The pool gives up on the waiting callers after its connection timeout (5 s).
      const waited = await Promise.all(calls.slice(2));
      for (const result of waited) {
        expect(result.isError).toBe(true);
        expect(result._meta?.["toolshed.dev/error"]).toMatchObject({
          kind: "tool",
          code: "unavailable",
          retryable: true,
        });
        const text = (result.content as Array<{ text: string }>)[0]?.text ?? "";
        expect(text).toMatch(
          new RegExp(
            `^Error executing tool get_note: ${BUSY} \\(ref [0-9a-f]{8}\\); temporary failure, safe to retry$`,
          ),
        );
      }
      await lock.query("ROLLBACK");
      for (const result of await Promise.all(calls.slice(0, 2))) expect(result.isError).toBeFalsy();
      expect(await opened.readiness()).toEqual({ ready: true });
    } finally {
      await lock.query("ROLLBACK").catch(() => {});
      lock.release();
      await client.close();
      await opened.close();
    }
  }, 20_000);

  it("a database that cannot be reached makes the instance not ready, saying so", async () => {
    const relay = await startRelay(new URL(db.url));
    const opened = await openPacks({ databaseUrl: relay.url, databaseSchema: db.schema, packs: ["notes"] });
    try {
      expect(await opened.readiness()).toEqual({ ready: true });
      await relay.cut();
      expect(await opened.readiness()).toEqual({
        ready: false,
        database: "unreachable",
        reason: "cannot reach the database",
      });
      expect(await opened.ready()).toBe(false);
    } finally {
      await opened.close();
    }
  }, 20_000);
});
