/**
 * @toolshed/packs: opens the notes, tickets and CRM packs on one database for the Toolshed
 * servers.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */

export type { SqliteDriver, SqliteDriverChoice } from "@toolshed/storage";
export {
  CONFIG_FILE_NAME,
  ConfigFileError,
  type ConfigProblem,
  configFlagOf,
  configJsonSchema,
  describeConfig,
  findConfigFile,
  type LoadedConfig,
  loadConfigFile,
  readServerConfig,
  SERVER_SETTINGS,
  type ServerSettingName,
} from "./config-file.js";
export { checkDatabaseUrl, DatabaseConnectError, redactDatabaseUrl } from "./database-url.js";
export { type OpenedPacks, type OpenPacksOptions, openPacks } from "./open-packs.js";
export { BUILT_IN_PACKS, type PackDatabase, type PackEntry } from "./pack-entry.js";
export { PACK_NAMES, PackConfigError, type PackName, parsePackList } from "./pack-names.js";
export type { DatabaseCondition, Readiness } from "./readiness.js";
export { parseSqliteDriver, SQLITE_DRIVER_CHOICES } from "./sqlite-driver.js";
