import type { Pack } from "@toolshed/schema";

/** What opening the stores on one database (SQLite or PostgreSQL) hands back to openPacks. */
export interface OpenedStores {
  packs: Pack[];
  /** Resolves when the database answers a query; rejects otherwise. */
  ping(): Promise<void>;
  /** Why the stores cannot write lately (a full disk…), for readiness; undefined when they can. */
  cannotWrite?(): string | undefined;
  /** Why calls wait for the database (every pooled connection in use), for readiness. */
  busy?(): string | undefined;
  close(): Promise<void>;
}
