import type { Pack } from "@toolshed/schema";

/** What a backend (SQLite or PostgreSQL) hands back to openPacks. */
export interface OpenedStores {
  packs: Pack[];
  /** Resolves when the database answers a query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
