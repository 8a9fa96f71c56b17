export {
  BatchCollector,
  type BatchFailure,
  type BatchOptions,
  type BatchResult,
  type BatchToolResult,
  batchErrorInfo,
  batchToolResult,
  isBatchResult,
  type RunBatchOptions,
  runBatch,
  summarizeBatch,
} from "./batch.js";
export { classifyError, parseRetryAfter } from "./classify.js";
export {
  ERROR_META_KEY,
  ErrorCode,
  type ErrorInfo,
  ErrorKind,
  isErrorCode,
  isRetryableByDefault,
  type ValidationIssue,
} from "./codes.js";
export { type ErrorLogger, newErrorRef, serializeError, stderrErrorLogger } from "./logger.js";
export {
  type ErrorResultOptions,
  type ErrorToolResult,
  formatIssue,
  invalidArgumentsResult,
  maskInternalError,
  retryHint,
  type TextContent,
  toolErrorResult,
  toToolErrorResult,
} from "./results.js";
export { closestMatches, didYouMean } from "./suggest.js";
export {
  CancelledError,
  ConflictError,
  FailedPreconditionError,
  InvalidArgumentsError,
  isToolError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  TimeoutError,
  ToolError,
  type ToolErrorOptions,
  UnavailableError,
} from "./tool-error.js";
