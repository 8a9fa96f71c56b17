export { checkDatabaseUrl, DatabaseConnectError, redactDatabaseUrl } from "./database-url.js";
export { type OpenedPacks, type OpenPacksOptions, openPacks } from "./open-packs.js";
export { PACK_NAMES, PackConfigError, type PackName, parsePackList } from "./pack-names.js";
