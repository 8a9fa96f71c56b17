import { brandErrorClass } from "@toolshed/errors/internal";
import { PackConfigError } from "./pack-names.js";

/** The database did not answer at start-up; the message says where it looked and what to check. */
export class DatabaseConnectError extends Error {}
brandErrorClass(DatabaseConnectError, "DatabaseConnectError");

// Query parameters that carry a credential (libpq and node-postgres: password, sslpassword, …).
const SECRET_PARAM = /pass|secret|token|key/i;

/** The URL without its credentials (the password, and secret query parameters), for messages and logs. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    for (const name of [...parsed.searchParams.keys()]) {
      if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, "***");
    }
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/** Checks a `--database-url` before anything connects; the message shows a URL that would work. */
export function checkDatabaseUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:")) {
    throw new PackConfigError(
      `database URL "${redactDatabaseUrl(url)}" is not a PostgreSQL URL; use postgres://USER:PASSWORD@HOST:5432/DATABASE`,
    );
  }
}
