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
