/**
 * @toolshed/tickets/postgres: the PostgreSQL side of @toolshed/tickets, kept apart so SQLite users never load pg.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { TICKETS_PG_MIGRATIONS } from "./migrations.js";
export { PostgresTicketsStore, type PostgresTicketsStoreOptions } from "./store.js";
