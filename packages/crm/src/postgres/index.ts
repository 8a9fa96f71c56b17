/**
 * @toolshed/crm/postgres: the PostgreSQL side of @toolshed/crm, kept apart so SQLite users never load pg.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { PostgresCrmBackend, type PostgresCrmBackendOptions } from "./backend.js";
export { CRM_PG_MIGRATIONS } from "./migrations.js";
