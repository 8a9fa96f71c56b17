export { type AttachPackOptions, attachPack } from "./attach.js";
export type { V2McpServer } from "./attach-v2.js";
export { type ChangeBus, type ChangeEvent, LocalChangeBus } from "./changes.js";
export {
  type Answer,
  type CallScope,
  type LegacyConnection,
  ProtocolCore,
  type ProtocolCoreOptions,
  type ServerInfo,
} from "./core.js";
export { type Envelope, readEnvelope } from "./envelope.js";
export {
  type Era,
  isModernRequest,
  LATEST_MODERN_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MetaKey,
  MODERN_PROTOCOL_VERSIONS,
  metaVersionOf,
} from "./era.js";
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
export {
  DEFAULT_STATE_MAX_BYTES,
  DEFAULT_STATE_TTL_MS,
  RequestStateCodec,
  type RequestStateOptions,
} from "./request-state.js";
export { type CallOutcome, type CancelSignal, outcomeOf } from "./run-tool.js";
export {
  type CacheFields,
  defaultIsReadOnlyRequest,
  type RequestView,
  Runtime,
  type RuntimeOptions,
} from "./runtime.js";
export { createSdkServer, type SdkServerOptions } from "./sdk-server.js";
export { type CreateServerOptions, createServer, type ToolshedServer } from "./server.js";
export { StdioTransport, type StdioTransportOptions } from "./stdio.js";
