export { TICKETS_PG_MIGRATIONS } from "./migrations.js";
export { PostgresTicketsStore, type PostgresTicketsStoreOptions } from "./store.js";
