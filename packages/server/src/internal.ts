/**
 * Internals of @toolshed/server that Toolshed's own transports (@toolshed/http) and tests build
 * on: the protocol core, JSON-RPC checks and the runtime. Not public API: anything here may
 * change in any release.
 */
export {
  type Access,
  insufficientScopeError,
  type RequestAccess,
  type ScopeDenied,
} from "./access.js";
export { Cancellation } from "./cancellation.js";
export { AdmittedCalls, Connection } from "./connection.js";
export { METHOD_TARGETS, type MethodTarget } from "./core/method-targets.js";
export { ProtocolCore } from "./core/protocol-core.js";
export type { Answer, CallScope, LegacyConnection, ProtocolCoreOptions, Reply, ServerInfo } from "./core/types.js";
export { type Envelope, readEnvelope } from "./envelope.js";
export { isModernMeta, isModernRequest, type Meta, MetaKey, metaOf, metaVersionOf } from "./era.js";
export { type CheckedMessage, checkJsonRpcMessage, type JsonRpcErrorResponse, parseJsonRpcText } from "./jsonrpc.js";
export { MiddlewareFrame, MiddlewareStack } from "./middleware.js";
export {
  checkLogLevel,
  completionParams,
  optionalObject,
  type Params,
  paramsOf,
  requireString,
} from "./params.js";
export { DEFAULT_STATE_MAX_BYTES, DEFAULT_STATE_TTL_MS, RequestStateCodec } from "./request-state.js";
export {
  batchTooLarge,
  DEFAULT_MAX_BATCH_BYTES,
  DEFAULT_MAX_RESULT_BYTES,
  jsonSizeOver,
  resultTooLarge,
} from "./result-size.js";
export { type CancelSignal, outcomeOf } from "./run-tool.js";
export type { CacheFields } from "./runtime/cache-hints.js";
export type { RequestView, RuntimeOptions } from "./runtime/parts.js";
export type { PromptListing } from "./runtime/registry.js";
export { defaultIsReadOnlyRequest, Runtime } from "./runtime/runtime.js";
export {
  INSTRUMENTATION_SCOPE,
  meterInstruments,
  TelemetryAttr,
  TelemetryMetric,
  type TraceContextCarrier,
  traceContextOf,
} from "./telemetry.js";
