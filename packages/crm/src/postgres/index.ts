export { PostgresCrmBackend, type PostgresCrmBackendOptions } from "./backend.js";
export { CRM_PG_MIGRATIONS } from "./migrations.js";
