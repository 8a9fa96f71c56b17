/**
 * @toolshed/notes/postgres: the PostgreSQL side of @toolshed/notes, kept apart so SQLite users never load pg.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { NOTES_PG_MIGRATIONS } from "./migrations.js";
export { PostgresNotesStore, type PostgresNotesStoreOptions } from "./store.js";
