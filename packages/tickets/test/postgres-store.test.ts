import { createTestSchema, pgReachable, TEST_DATABASE_URL } from "@toolshed/storage/postgres";
import { describe } from "vitest";
import { PostgresTicketsStore } from "../src/postgres/index.js";
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
});
