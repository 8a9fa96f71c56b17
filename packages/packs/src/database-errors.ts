import { MigrationError, StorageOpenError } from "@toolshed/storage";
import { PackConfigError } from "./pack-names.js";

// SQLite errors that mean "this file cannot be used", not a fault of the server.
const FILE_CODES = /^SQLITE_(NOTADB|CORRUPT|READONLY|CANTOPEN|PERM|AUTH)/;
// PostgreSQL: the migrations ran in a read-only transaction.
const READ_ONLY_TRANSACTION = "25006";

/**
 * Turns a database that cannot be used at start-up into one PackConfigError whose message names
 * the database, what is wrong and what would work, in the servers' terms (their flags), so both
 * servers say the same and exit with the same code. Anything else is returned as it is.
 */
export function explainDatabaseError(
  error: unknown,
  options: { database: string; readOnly: boolean; demo: boolean },
): unknown {
  if (error instanceof MigrationError && error.reason === "older_schema") {
    return new PackConfigError(
      error.found === 0
        ? `database ${error.database} has no ${error.scope} tables yet; --read-only does not create them: start once without --read-only to create them`
        : `database ${error.database} has ${error.scope} schema version ${error.found}, older than this release needs (${error.latest}); --read-only does not upgrade it: start once without --read-only to upgrade it`,
      { cause: error },
    );
  }
  if (error instanceof StorageOpenError) {
    const { database, detail } = error;
    if (error.reason === "missing" && options.readOnly) {
      return new PackConfigError(
        `database ${database} does not exist; --read-only serves an existing database: start once without --read-only (or with --demo) to create it`,
        { cause: error },
      );
    }
    if (error.reason === "read_only" && options.readOnly && options.demo) {
      return new PackConfigError(
        `database ${database} is read-only for this process: ${detail}, and --demo writes the demo data into it; drop --demo to serve it as it is, or make it writable`,
        { cause: error },
      );
    }
    if (error.reason === "read_only") {
      return new PackConfigError(
        `database ${database} is read-only for this process: ${detail}; make it writable by the user running the server, or start with --read-only to serve only the read-only tools`,
        { cause: error },
      );
    }
    if (error.reason === "read_only_folder") {
      return new PackConfigError(
        `database ${database} cannot be written: ${detail}; make the folder writable by the user running the server`,
        { cause: error },
      );
    }
    return new PackConfigError(error.message, { cause: error });
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (code === READ_ONLY_TRANSACTION) {
    return new PackConfigError(
      `database ${options.database} is read-only (${(error as Error).message}: a read-only role, setting or standby); start with --read-only to serve only the read-only tools, or use a writable database`,
      { cause: error },
    );
  }
  if (typeof code === "string" && FILE_CODES.test(code)) {
    return new PackConfigError(
      `cannot use database ${options.database} (${code}: ${(error as Error).message}); choose another file or :memory:`,
      { cause: error },
    );
  }
  return error;
}
