import { randomBytes } from "node:crypto";
import { createPgPool, type PgPool, pgIdentifier } from "./pool.js";

/** Where tests find PostgreSQL: TOOLSHED_TEST_DATABASE_URL, else the local `test` database. */
export const TEST_DATABASE_URL = process.env.TOOLSHED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * Whether PostgreSQL answers at the test URL. Tests skip with a clear message when it does not,
 * except under CI=true, where an unreachable database fails the run.
 */
export async function pgReachable(url: string = TEST_DATABASE_URL): Promise<boolean> {
  const pool = createPgPool(url, { max: 1, connectionTimeoutMs: 2000 });
  try {
    await pool.query("SELECT 1");
    return true;
  } catch (error) {
    if (process.env.CI === "true" || process.env.CI === "1") {
      throw new Error(`PostgreSQL is required in CI but ${url} did not answer: ${(error as Error).message}`);
    }
    return false;
  } finally {
    await pool.end().catch(() => {});
  }
}

export interface TestSchema {
  url: string;
  schema: string;
  /** A pool whose connections use only this schema. */
  pool(options?: { max?: number; statementTimeoutMs?: number }): PgPool;
  /** Drops the schema and everything in it, and ends the pools made here. */
  drop(): Promise<void>;
}

/** A fresh, empty schema for one test run, so runs never see each other's rows. */
export async function createTestSchema(url: string = TEST_DATABASE_URL): Promise<TestSchema> {
  const schema = `toolshed_test_${randomBytes(6).toString("hex")}`;
  const admin = createPgPool(url, { max: 1 });
  await admin.query(`CREATE SCHEMA ${pgIdentifier(schema)}`);
  const pools: PgPool[] = [];
  return {
    url,
    schema,
    pool(options = {}) {
      const pool = createPgPool(url, { ...options, schema });
      pools.push(pool);
      return pool;
    },
    async drop() {
      await Promise.allSettled(pools.map((p) => p.end()));
      await admin.query(`DROP SCHEMA IF EXISTS ${pgIdentifier(schema)} CASCADE`);
      await admin.end();
    },
  };
}
