import type { Pack } from "@toolshed/schema";
import { checkDatabaseUrl } from "./database-url.js";
import { openSqlitePacks } from "./open-sqlite.js";
import { PACK_NAMES, type PackName } from "./pack-names.js";
import type { OpenedStores } from "./stores.js";

export interface OpenPacksOptions {
  /** SQLite file (created with its folders) or `:memory:`; ignored when `databaseUrl` is given. */
  db?: string;
  /** PostgreSQL URL (`postgres://…`): the stores share one pool, so several instances share the data. */
  databaseUrl?: string;
  /** PostgreSQL schema for the tables, created when missing (default: the server's search_path). */
  databaseSchema?: string;
  /** PostgreSQL connections in this process (default 10). */
  poolMax?: number;
  packs?: readonly PackName[];
  /** Seed demo data into stores that are empty of it (idempotent, also across instances). */
  demo?: boolean;
  /** Backend timeout of the CRM pack in ms. */
  crmTimeoutMs?: number;
  /**
   * Open the database without writing to it: SQLite read-only (no WAL switch, no migrations), on
   * PostgreSQL no migrations and no schema created. The tables must be at this release's version.
   * With `demo`, the demo data is written first. `:memory:` stays writable.
   */
  readOnly?: boolean;
  /** How long idempotency keys are remembered (default 24 hours; Infinity keeps them forever). */
  idempotencyRetentionMs?: number;
}

export interface OpenedPacks {
  packs: Pack[];
  names: PackName[];
  /** Which database the stores use. */
  backend: "sqlite" | "postgres";
  /** True when the database answers a query (SELECT 1). */
  ready(): Promise<boolean>;
  /** Closes every store (and the PostgreSQL pool); safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens the chosen packs on one database: SQLite by default, PostgreSQL when `databaseUrl` is
 * given. Every pack's tables are checked before anything is written, so a database from a newer
 * release is refused unchanged. A database that cannot be used is a PackConfigError whose message
 * says what would work. Stores close with `close()`, not with a server.
 */
export async function openPacks(options: OpenPacksOptions): Promise<OpenedPacks> {
  const names = [...(options.packs ?? PACK_NAMES)];
  const common = {
    ...(options.demo === undefined ? {} : { demo: options.demo }),
    ...(options.crmTimeoutMs === undefined ? {} : { crmTimeoutMs: options.crmTimeoutMs }),
    ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
    ...(options.idempotencyRetentionMs === undefined ? {} : { idempotencyRetentionMs: options.idempotencyRetentionMs }),
  };
  let stores: OpenedStores;
  if (options.databaseUrl !== undefined) {
    checkDatabaseUrl(options.databaseUrl);
    const { openPostgresPacks } = await import("./open-postgres.js");
    stores = await openPostgresPacks(options.databaseUrl, names, {
      ...common,
      ...(options.databaseSchema === undefined ? {} : { schema: options.databaseSchema }),
      ...(options.poolMax === undefined ? {} : { poolMax: options.poolMax }),
    });
  } else {
    stores = await openSqlitePacks(options.db ?? ":memory:", names, common);
  }
  let closed = false;
  return {
    packs: stores.packs,
    names,
    backend: options.databaseUrl === undefined ? "sqlite" : "postgres",
    async ready() {
      if (closed) return false;
      try {
        await stores.ping();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await stores.close();
    },
  };
}
