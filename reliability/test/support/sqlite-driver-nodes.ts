import { SQLITE_DRIVERS, type SqliteDriver } from "@toolshed/storage";
import { sqliteDriverProblem } from "@toolshed/test-support";
import { nodeLine } from "../../../node-lines/test/lines.js";

/** A Node binary that runs the servers with one SQLite driver, or why no Node here can. */
export type DriverNode =
  | { driver: SqliteDriver; node: string; version: string; problem?: undefined }
  | { driver: SqliteDriver; problem: string };

/**
 * For each SQLite driver, the Node that starts the built bins with it: this Node when the driver
 * loads here; for node:sqlite on an older Node (20), the Node 24 binary of the node-lines holder,
 * as database-startup does. Otherwise the reason, for a skip that says what it did not cover.
 */
export function sqliteDriverNodes(): DriverNode[] {
  return SQLITE_DRIVERS.map((driver): DriverNode => {
    const problem = sqliteDriverProblem(driver);
    if (problem === undefined) return { driver, node: process.execPath, version: process.version };
    if (driver === "node") {
      const line = nodeLine(24);
      if ("bin" in line) return { driver, node: line.bin, version: line.version };
      return { driver, problem: `${problem}, and no newer Node: ${line.problem}` };
    }
    return { driver, problem };
  });
}
