/**
 * @toolshed/crm: the CRM pack (tools, resources, prompts) and its SQLite store. The PostgreSQL
 * store is in `@toolshed/crm/postgres`.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export type {
  Account,
  AccountPage,
  AccountRef,
  AccountSearch,
  AccountSearchHit,
  AccountSearchPage,
  BackendCallOptions,
  CreateAccountOptions,
  CrmBackend,
  NewAccount,
  Tier,
  TierUpdate,
} from "./backend.js";
export { TIERS } from "./backend.js";
export { DEMO_ACCOUNTS } from "./demo-accounts.js";
export {
  type BackendCall,
  type CrmBackendMethod,
  type FaultOptions,
  type FaultRule,
  FaultyCrmBackend,
  withFaults,
} from "./faulty-backend.js";
export { accountNameKey, normalizeAccountName } from "./names.js";
export { type CrmPackOptions, crmPack, DEFAULT_BACKEND_TIMEOUT_MS } from "./pack.js";
export { type SeedResult, seedDemo } from "./seed.js";
export { SqliteCrmBackend, type SqliteCrmBackendOptions } from "./sqlite/backend.js";
export { CRM_MIGRATION_SCOPE, CRM_SQLITE_MIGRATIONS } from "./sqlite/migrations.js";
