/**
 * Internals of @toolshed/errors that the Toolshed runtime and transports build on. Not public
 * API: anything here may change in any release.
 */
export { batchErrorInfo, isBatchResult, summarizeBatch } from "./batch.js";
export { brandErrorClass } from "./brand.js";
export { parseRetryAfter } from "./classify.js";
export { isRetryableByDefault } from "./codes.js";
export { type ErrorLogger, internalErrorMessage, newErrorRef, serializeError, stderrErrorLogger } from "./logger.js";
export { formatIssue } from "./results.js";
