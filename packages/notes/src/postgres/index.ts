export { NOTES_PG_MIGRATIONS } from "./migrations.js";
export { PostgresNotesStore, type PostgresNotesStoreOptions } from "./store.js";
