import {
  defaultSqliteDriver,
  openSqlite,
  type SqliteDriver,
  type SqliteDriverChoice,
  StorageOpenError,
} from "@toolshed/storage";
import { PackConfigError } from "./pack-names.js";

/** The values of the servers' --sqlite-driver (TOOLSHED_SQLITE_DRIVER). */
export const SQLITE_DRIVER_CHOICES: readonly SqliteDriverChoice[] = ["auto", "node", "better-sqlite3"];

/** Reads a --sqlite-driver value; anything else is a PackConfigError listing the values. */
export function parseSqliteDriver(text: string): SqliteDriverChoice {
  const value = text.trim().toLowerCase();
  const found = SQLITE_DRIVER_CHOICES.find((choice) => choice === value);
  if (found !== undefined) return found;
  throw new PackConfigError(
    `unknown SQLite driver "${text}"; choose ${SQLITE_DRIVER_CHOICES.join(", ")} (auto: node:sqlite on Node 22.16 or later, else better-sqlite3)`,
  );
}

const BETTER_SQLITE3 = "better-sqlite3@12.11.1";

/**
 * The driver a choice opens files with in this process, or a PackConfigError in the servers'
 * terms (--sqlite-driver) saying what would work: another driver, another Node, or an install.
 */
export function resolveSqliteDriver(choice: SqliteDriverChoice = "auto"): SqliteDriver {
  const found = defaultSqliteDriver();
  const node = process.version;
  if (choice === "auto") {
    if (found !== undefined) return found;
    throw new PackConfigError(
      `no SQLite driver can be used in Node ${node}: node:sqlite needs Node 22.16 or later and better-sqlite3 cannot be loaded; run on Node 22.16 or later, or install better-sqlite3 (npm install ${BETTER_SQLITE3})`,
    );
  }
  if (choice === "node") {
    // defaultSqliteDriver tries node:sqlite first, so it names it exactly when it loads.
    if (found === "node") return "node";
    throw new PackConfigError(
      `--sqlite-driver node cannot be used: node:sqlite needs Node 22.16 or later and this is Node ${node}; run on Node 22.16 or later${found === undefined ? ` (or install better-sqlite3: npm install ${BETTER_SQLITE3})` : ", or start with --sqlite-driver auto (better-sqlite3 here)"}`,
    );
  }
  if (choice === "better-sqlite3") {
    try {
      openSqlite(":memory:", { driver: choice }).close();
      return choice;
    } catch (error) {
      if (!(error instanceof StorageOpenError) || error.reason !== "driver_unavailable") throw error;
      // storage says why (not installed, or built for another Node) between these words.
      const why = /cannot be used: (.*?);/.exec(error.message)?.[1] ?? "it cannot be loaded";
      throw new PackConfigError(
        `--sqlite-driver better-sqlite3 cannot be used: ${why}; ${found === "node" ? "start with --sqlite-driver auto (node:sqlite, built into this Node), or " : "run on Node 22.16 or later, or "}install it for Node ${node} (npm install ${BETTER_SQLITE3})`,
        { cause: error },
      );
    }
  }
  throw new PackConfigError(`unknown SQLite driver "${String(choice)}"; choose auto, node or better-sqlite3`);
}
