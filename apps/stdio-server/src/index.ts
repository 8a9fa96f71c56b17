/**
 * @toolshed/stdio-server: the toolshed-stdio server (the three packs over stdio) as functions, for
 * tests and launchers.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export {
  BIN_NAME,
  LOG_LEVELS,
  type ParseStdioArgsOptions,
  parseStdioArgs,
  STDIO_FLAGS,
  type StdioCommand,
  type StdioConfig,
  StdioUsageError,
  usageText,
} from "./args.js";
export { InFlightTransport } from "./in-flight.js";
export { type RunningStdioServer, type RunStdioOptions, runStdioServer } from "./run.js";
export { packageVersion } from "./version.js";
