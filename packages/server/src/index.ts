/**
 * @toolshed/server: the runtime that serves Toolshed packs over MCP (stdio, in memory, an SDK
 * McpServer), in both protocol eras.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards. The protocol core that Toolshed's own
 * transports build on lives in `@toolshed/server/internal`, which may change in any release.
 */
export type { AccessKind, AccessTarget, AccessTargetOf, CanAccess } from "./access.js";
export { attachPack } from "./attach.js";
export type { AttachPackOptions } from "./attach-options.js";
export type { V2McpServer } from "./attach-v2.js";
export { type ChangeBus, type ChangeEvent, LocalChangeBus } from "./changes.js";
export type { ConnectOptions, ServerConnection } from "./connection.js";
export type { TaskOptions } from "./core/tasks.js";
export {
  type Era,
  LATEST_MODERN_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
} from "./era.js";
export { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";
export { type CreateLoggerOptions, createLogger, type LogLevelName } from "./logger.js";
export { type ConnectInMemoryOptions, connectInMemory } from "./memory.js";
export type {
  Middleware,
  MiddlewareContext,
  MiddlewareContextBase,
  MiddlewareKind,
  MiddlewareRegistration,
  PromptMiddlewareContext,
  RequestMiddlewareContext,
  ResourceMiddlewareContext,
  ToolMiddlewareContext,
  UseOptions,
} from "./middleware.js";
export type { RequestStateOptions } from "./request-state.js";
export type { CallOutcome } from "./run-tool.js";
export type { ToolCallOutcome, ToolOutcomeListener } from "./runtime/parts.js";
export { type CreateServerOptions, createServer, type ToolshedServer } from "./server.js";
export { StdioTransport, type StdioTransportOptions } from "./stdio.js";
export { PostgresTaskStore, type TaskPgPool, type TaskPgQueryable } from "./tasks/postgres-task-store.js";
export { SqliteTaskStore, type TaskSqlite } from "./tasks/sqlite-task-store.js";
export type { TaskChange, TaskRecord, TaskStatus } from "./tasks/task-record.js";
export { MemoryTaskStore, type TaskStore } from "./tasks/task-store.js";
export { TelemetryAttr, TelemetryMetric, type TraceContextCarrier } from "./telemetry.js";
