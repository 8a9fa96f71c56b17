/**
 * @toolshed/crm: the CRM pack (tools, resources, prompts) and its SQLite store. The PostgreSQL
 * store is in `@toolshed/crm/postgres`.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */

export { DEMO_ACCOUNTS } from "./demo-accounts.js";
export {
  type CrmStoreMethod,
  type FaultOptions,
  type FaultRule,
  FaultyCrmStore,
  type StoreCall,
  withFaults,
} from "./faulty-store.js";
export { accountNameKey, normalizeAccountName } from "./names.js";
export { type CrmPackOptions, crmPack, DEFAULT_STORE_TIMEOUT_MS } from "./pack.js";
export { type SeedResult, seedDemo } from "./seed.js";
export { CRM_MIGRATION_SCOPE, CRM_SQLITE_MIGRATIONS } from "./sqlite/migrations.js";
export { SqliteCrmStore, type SqliteCrmStoreOptions } from "./sqlite/store.js";
export type {
  Account,
  AccountPage,
  AccountRef,
  AccountSearch,
  AccountSearchHit,
  AccountSearchPage,
  CreateAccountOptions,
  CrmStore,
  NewAccount,
  StoreCallOptions,
  Tier,
  TierUpdate,
} from "./store.js";
export { TIERS } from "./store.js";
export { toolshedPack } from "./toolshed-pack.js";
