/**
 * @toolshed/packs: opens the notes, tickets and CRM packs on one database for the Toolshed
 * servers.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { checkDatabaseUrl, DatabaseConnectError, redactDatabaseUrl } from "./database-url.js";
export { type OpenedPacks, type OpenPacksOptions, openPacks } from "./open-packs.js";
export { PACK_NAMES, PackConfigError, type PackName, parsePackList } from "./pack-names.js";
