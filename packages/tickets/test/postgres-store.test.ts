import { createTestSchema, pgReachable, runPgMigrations, TEST_DATABASE_URL } from "@toolshed/storage/postgres";
import { describe, expect, it } from "vitest";
import { PostgresTicketsStore, TICKETS_PG_MIGRATIONS } from "../src/postgres/index.js";
import { describeTicketsStoreContract } from "./store-contract.js";

// Under CI=true pgReachable throws instead, so the run fails rather than skipping.
const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL tickets store tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

// Generous: each test makes a schema and migrates it, on a machine that may be busy.
describe.skipIf(!reachable)("PostgresTicketsStore", { timeout: 30_000 }, () => {
  // Each store gets a fresh schema, dropped after its test: the contract wants an empty store.
  describeTicketsStoreContract("PostgreSQL, opened by URL", async () => {
    const db = await createTestSchema();
    const store = await PostgresTicketsStore.open(db.url, { schema: db.schema, max: 4 });
    return { store, cleanup: () => db.drop() };
  });

  describeTicketsStoreContract("PostgreSQL, on a pool the caller owns", async () => {
    const db = await createTestSchema();
    const store = await PostgresTicketsStore.open({ pool: db.pool({ max: 4 }) });
    return { store, cleanup: () => db.drop() };
  });

  it("upgrading a version 3 database rebuilds the search vectors: its tickets are found by the parts of ERR-4581", async () => {
    const db = await createTestSchema();
    const pool = db.pool({ max: 2 });
    try {
      await runPgMigrations(pool, "tickets", TICKETS_PG_MIGRATIONS.slice(0, 3));
      await pool.query(
        "INSERT INTO tickets (title, body, created_at, updated_at) VALUES ('Deploy fails', 'Error code ERR-4581 again', now(), now())",
      );
      const store = await PostgresTicketsStore.open({ pool });
      const hits = await store.searchTickets({ text: "4581", status: "any", limit: 5 });
      expect(hits.map((h) => h.id)).toEqual(["T-1001"]);
      await store.close();
    } finally {
      await db.drop();
    }
  });

  it("past 4,000 tickets, a word on a full page of the newest is answered newest first; rarer ones stay ranked", async () => {
    const db = await createTestSchema();
    const store = await PostgresTicketsStore.open({ pool: db.pool({ max: 2 }) });
    try {
      // 4,100 tickets straight into the table (the store would take seconds), every other one
      // closed; all say "login"; the oldest 20 also say "invoice", in the title for 5 of them.
      await db.pool().query(
        `INSERT INTO tickets (title, body, status, created_at, updated_at)
         SELECT CASE WHEN i BETWEEN 16 AND 20 THEN 'invoice ' || i ELSE 'ticket ' || i END,
                'login fails' || CASE WHEN i <= 20 THEN ' after the invoice run' ELSE '' END,
                CASE WHEN i % 2 = 0 THEN 'closed' ELSE 'open' END, now(), now()
         FROM generate_series(1, 4100) AS i`,
      );
      const closed = await store.searchTickets({ text: "login", status: "closed", limit: 3 });
      expect(closed.map((t) => t.id)).toEqual(["T-5100", "T-5098", "T-5096"]);
      expect(closed[0]).toMatchObject({ status: "closed", snippet: "**login** fails" });
      const invoice = await store.searchTickets({ text: "invoice", status: "any", limit: 6 });
      // Not on a full page of the newest 4,000: ranked, title matches first, ties by id.
      expect(invoice.map((t) => t.id)).toEqual(["T-1016", "T-1017", "T-1018", "T-1019", "T-1020", "T-1001"]);
      // Whole words first, then word starts; a word PostgreSQL's statistics count in more than
      // 2,000 tickets is not expanded to its longer forms ("login" does not find "loginish").
      await store.createTicket({ title: "odd one", body: "loginish invoices", priority: "normal" });
      await db.pool().query("ANALYZE tickets");
      const mixed = await store.searchTickets({ text: "login invo", status: "any", limit: 30 });
      expect(mixed).toHaveLength(20);
      expect(mixed.map((t) => t.title)).not.toContain("odd one");
      const odd = await store.searchTickets({ text: "logini invo", status: "any", limit: 5 });
      expect(odd.map((t) => t.title)).toEqual(["odd one"]);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
