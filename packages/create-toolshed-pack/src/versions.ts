/**
 * Versions of the tools a standalone pack is built and tested with: the ones the Toolshed
 * workspace tests against (its pnpm catalog). A test keeps them equal to the catalog.
 */
export const DEV_VERSIONS = {
  "@modelcontextprotocol/sdk": "1.32.2",
  "@types/node": "^20.19.0",
  tsup: "8.5.0",
  typescript: "5.9.3",
  vitest: "4.1.12",
  zod: "4.6.7",
} as const;

/** Peer ranges of a pack: the consumer's server brings one zod and one SDK for every pack. */
export const PEER_RANGES = {
  "@modelcontextprotocol/sdk": "^1.32.0",
  zod: "^4.0.0",
} as const;

/** The Node lines Toolshed supports, as every Toolshed package states them. */
export const NODE_ENGINES = "^20.19.0 || ^22.12.0 || ^24.0.0 || ^26.0.0";

/** The better-sqlite3 that @toolshed/storage loads where node:sqlite is missing. */
export const BETTER_SQLITE3_VERSION = "12.11.1";

/** Whether this Node has node:sqlite as @toolshed/storage uses it (22.16 and later). */
export function hasNodeSqlite(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 16);
}
