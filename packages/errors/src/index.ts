/**
 * @toolshed/errors: the error taxonomy of Toolshed tools: tool errors with codes, retryable or
 * not, masking of unexpected failures, and partial success of batches.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards. What the Toolshed runtime needs beyond it
 * lives in `@toolshed/errors/internal`, which may change in any release.
 */
export {
  BatchCollector,
  type BatchFailure,
  type BatchOptions,
  type BatchResult,
  type BatchToolResult,
  batchToolResult,
  type RunBatchOptions,
  runBatch,
} from "./batch.js";
export { classifyError } from "./classify.js";
export { ERROR_META_KEY, ErrorCode, type ErrorInfo, ErrorKind, isErrorCode, type ValidationIssue } from "./codes.js";
export {
  type ErrorResultOptions,
  type ErrorToolResult,
  invalidArgumentsResult,
  maskInternalError,
  retryHint,
  type TextContent,
  toolErrorResult,
  toToolErrorResult,
} from "./results.js";
export { closestMatches, closestToolNames, didYouMean } from "./suggest.js";
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
