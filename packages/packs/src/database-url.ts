import { PackConfigError } from "./pack-names.js";

/** The database did not answer at start-up; the message says where it looked and what to check. */
export class DatabaseConnectError extends Error {}

/** The URL without its password, for messages and logs. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
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
