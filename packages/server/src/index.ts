export { type AttachPackOptions, attachPack } from "./attach.js";
export { type CheckedMessage, checkJsonRpcMessage, type JsonRpcErrorResponse, parseJsonRpcText } from "./jsonrpc.js";
export { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";
export { type CreateLoggerOptions, createLogger, type LogLevelName } from "./logger.js";
export { type ConnectInMemoryOptions, connectInMemory } from "./memory.js";
export {
  checkLogLevel,
  completionParams,
  optionalObject,
  type Params,
  paramsOf,
  requireString,
} from "./params.js";
export { type CallOutcome, type CancelSignal, outcomeOf } from "./run-tool.js";
export { defaultIsReadOnlyRequest, type RequestView, Runtime, type RuntimeOptions } from "./runtime.js";
export { createSdkServer, type SdkServerOptions } from "./sdk-server.js";
export { type CreateServerOptions, createServer, type ToolshedServer } from "./server.js";
export { StdioTransport, type StdioTransportOptions } from "./stdio.js";
