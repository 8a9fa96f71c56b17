/**
 * @toolshed/crm/postgres: the PostgreSQL side of @toolshed/crm, kept apart so SQLite users never load pg.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */

export { CRM_PG_MIGRATIONS } from "./migrations.js";
export { PostgresCrmStore, type PostgresCrmStoreOptions } from "./store.js";
