import { classifyError } from "@toolshed/errors";
import { MigrationError } from "@toolshed/storage";
import {
  createTestSchema,
  pgReachable,
  runPgMigrations,
  TEST_DATABASE_URL,
  type TestSchema,
} from "@toolshed/storage/postgres";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PostgresTicketsStore, TICKETS_PG_MIGRATIONS } from "../src/postgres/index.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL tickets open tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

describe("PostgresTicketsStore.open without a database", () => {
  it("C10: a refused connection is a retryable unavailable error", async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const failed = await PostgresTicketsStore.open("postgres://postgres@127.0.0.1:1/test", {
      connectionTimeoutMs: 3000,
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(classifyError(failed)).toMatchObject({ code: "unavailable", retryable: true });
  });
});

describe.skipIf(!reachable)("PostgresTicketsStore.open", { timeout: 30_000 }, () => {
  let db: TestSchema;
  beforeEach(async () => {
    db = await createTestSchema();
  });
  afterEach(() => db.drop());

  const versions = async () =>
    (
      await db
        .pool({ max: 1 })
        .query("SELECT version FROM toolshed_migrations WHERE scope = 'tickets' ORDER BY version")
    ).rows.map((r) => r.version);

  it("creates a missing schema, migrates once, and keeps data across opens", async () => {
    const schema = `${db.schema}_own`;
    const first = await PostgresTicketsStore.open(db.url, { schema });
    try {
      await first.createTicket({ title: "Kept", body: "across opens", priority: "normal" });
    } finally {
      await first.close();
    }
    const second = await PostgresTicketsStore.open(db.url, { schema });
    try {
      expect((await second.getTicket("T-1001")).title).toBe("Kept");
      const rows = await db
        .pool({ max: 1 })
        .query(`SELECT version FROM "${schema}".toolshed_migrations WHERE scope = 'tickets' ORDER BY version`);
      expect(rows.rows.map((r) => r.version)).toEqual(TICKETS_PG_MIGRATIONS.map((m) => m.version));
    } finally {
      await second.close();
      await db.pool({ max: 1 }).query(`DROP SCHEMA "${schema}" CASCADE`);
    }
    await expect(second.close()).resolves.toBeUndefined();
  });

  it("lets several instances start at once on an empty schema", async () => {
    const stores = await Promise.all(
      Array.from({ length: 3 }, () => PostgresTicketsStore.open({ pool: db.pool({ max: 2 }) })),
    );
    expect(await versions()).toEqual(TICKETS_PG_MIGRATIONS.map((m) => m.version));
    const created = await Promise.all(
      stores.map((s, i) => s.createTicket({ title: `From ${i}`, body: "b", priority: "low" })),
    );
    expect(created.map((c) => c.ticket.id).sort()).toEqual(["T-1001", "T-1002", "T-1003"]);
    for (const s of stores) await s.close();
  });

  it("refuses a database from a newer release, naming the versions", async () => {
    const pool = db.pool({ max: 1 });
    await runPgMigrations(pool, "tickets", [...TICKETS_PG_MIGRATIONS, { version: 9, name: "future", up: "SELECT 1" }]);
    const refused = PostgresTicketsStore.open({ pool });
    await expect(refused).rejects.toBeInstanceOf(MigrationError);
    await expect(refused).rejects.toThrow(
      `has tickets schema version 9, newer than this release knows (${TICKETS_PG_MIGRATIONS.length}); upgrade Toolshed to a release that knows it, or use another database`,
    );
  });

  it("finds accented words by their bare letters, in any case", async () => {
    const store = await PostgresTicketsStore.open({ pool: db.pool({ max: 2 }) });
    try {
      await store.createTicket({ title: "Café menu", body: "Ångström units in the Über report", priority: "low" });
      for (const text of ["cafe", "CAFÉ", "angstrom", "uber"]) {
        expect(
          (await store.searchTickets({ text, status: "any", limit: 5 })).map((h) => h.id),
          text,
        ).toEqual(["T-1001"]);
      }
      const [hit] = await store.searchTickets({ text: "units", status: "any", limit: 5 });
      expect(hit?.snippet).toBe("Ångström **units** in the Über report");
    } finally {
      await store.close();
    }
  });

  it("replays an idempotent write with the same JSON, key order included, as the first answer", async () => {
    const store = await PostgresTicketsStore.open({ pool: db.pool({ max: 2 }) });
    try {
      const args = { title: "Replay me", body: "b", priority: "low" } as const;
      const first = await store.createTicket(args, { idempotencyKey: "k" });
      expect(JSON.stringify(await store.createTicket(args, { idempotencyKey: "k" }))).toBe(JSON.stringify(first));
      const comment = await store.addComment("T-1001", "hi", { idempotencyKey: "c" });
      expect(JSON.stringify(await store.addComment("T-1001", "hi", { idempotencyKey: "c" }))).toBe(
        JSON.stringify(comment),
      );
    } finally {
      await store.close();
    }
  });

  it("rejects a listing cursor that decodes but could not have come from this store", async () => {
    const store = await PostgresTicketsStore.open({ pool: db.pool({ max: 2 }) });
    try {
      const forged = Buffer.from(JSON.stringify({ u: "yesterday", n: 1.5, s: "any" })).toString("base64url");
      await expect(store.listTickets({ limit: 5, cursor: forged })).rejects.toThrow(
        "cursor is not valid; pass next_cursor from the previous page unchanged, or omit it",
      );
    } finally {
      await store.close();
    }
  });
});
