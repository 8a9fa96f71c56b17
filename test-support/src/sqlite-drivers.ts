import { openSqlite, SQLITE_DRIVERS, type SqliteDriver, StorageOpenError } from "@toolshed/storage";
import { describe } from "vitest";

/**
 * Runs `suite` once per SQLite driver: each driver that loads in this Node runs it; one that does
 * not (node:sqlite before Node 22.16, a better-sqlite3 addon built for another Node) is a skipped
 * block whose title says why, so a run shows what it did not cover.
 */
export function forEachSqliteDriver(suite: (driver: SqliteDriver) => void): void {
  for (const driver of SQLITE_DRIVERS) {
    const problem = sqliteDriverProblem(driver);
    if (problem === undefined) describe(`SQLite driver ${driver}`, () => suite(driver));
    else describe.skip(`SQLite driver ${driver} (skipped: ${problem})`, () => suite(driver));
  }
}

/** Why `driver` cannot be used in this Node, or undefined when it can. */
export function sqliteDriverProblem(driver: SqliteDriver): string | undefined {
  try {
    openSqlite(":memory:", { driver }).close();
    return undefined;
  } catch (error) {
    if (!(error instanceof StorageOpenError) || error.reason !== "driver_unavailable") throw error;
    return /cannot be used: (.*?);/.exec(error.message)?.[1] ?? error.message;
  }
}
