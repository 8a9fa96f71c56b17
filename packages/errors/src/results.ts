import { classifyError } from "./classify.js";
import { ERROR_META_KEY, ErrorCode, type ErrorInfo, type ValidationIssue } from "./codes.js";
import { type ErrorLogger, newErrorRef, stderrErrorLogger } from "./logger.js";
import { isToolError, type ToolError } from "./tool-error.js";

/** A text content block. */
export interface TextContent {
  type: "text";
  text: string;
}

/** The shape of an MCP `CallToolResult` that error results use; assignable to the SDK's type. */
export interface ErrorToolResult {
  [key: string]: unknown;
  content: TextContent[];
  isError: true;
  _meta: { [ERROR_META_KEY]: ErrorInfo };
}

export interface ErrorResultOptions {
  /** Where masked and classified exceptions are logged; defaults to JSON lines on stderr. */
  logger?: ErrorLogger;
  /** Use this reference id instead of a new one. */
  ref?: string;
}

/** The hint appended to every retryable error's text (C9). */
export function retryHint(retryAfterMs?: number): string {
  if (retryAfterMs === undefined || retryAfterMs <= 0) return "temporary failure, safe to retry";
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return `temporary failure, safe to retry after ${seconds} s`;
}

function errorResult(text: string, info: ErrorInfo): ErrorToolResult {
  const meta: ErrorInfo = { kind: info.kind, code: info.code, retryable: info.retryable };
  if (info.retryAfterMs !== undefined) meta.retryAfterMs = info.retryAfterMs;
  if (info.ref !== undefined) meta.ref = info.ref;
  if (info.issues !== undefined) meta.issues = info.issues;
  const full = info.retryable ? `${text}; ${retryHint(info.retryAfterMs)}` : text;
  return { content: [{ type: "text", text: full }], isError: true, _meta: { [ERROR_META_KEY]: meta } };
}

/** Formats one issue as `path: message` (C6). */
export function formatIssue(issue: ValidationIssue): string {
  return issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`;
}

/** C6: arguments that failed the schema. Not retryable as they are. */
export function invalidArgumentsResult(toolName: string, issues: ValidationIssue[]): ErrorToolResult {
  const lines = issues.map(formatIssue);
  return errorResult(`Invalid arguments for tool ${toolName}:\n${lines.join("\n")}`, {
    kind: "validation",
    code: ErrorCode.invalid_arguments,
    retryable: false,
    issues,
  });
}

/**
 * C8/C9: a tool error whose message reaches the model. A validation-class one (an
 * InvalidArgumentsError, or any code invalid_arguments) reads as C6, whoever found the problem.
 */
export function toolErrorResult(toolName: string, error: ToolError, ref?: string): ErrorToolResult {
  const validation = error.kind === "validation" || error.code === ErrorCode.invalid_arguments;
  const info: ErrorInfo = {
    kind: validation ? "validation" : error.kind,
    code: error.code,
    retryable: error.retryable,
  };
  if (error.retryAfterMs !== undefined) info.retryAfterMs = error.retryAfterMs;
  if (ref !== undefined) info.ref = ref;
  const issues = (error as { issues?: ValidationIssue[] }).issues;
  if (validation && Array.isArray(issues) && issues.length > 0) info.issues = issues;
  const suffix = ref === undefined ? "" : ` (ref ${ref})`;
  const head = validation ? `Invalid arguments for tool ${toolName}:\n` : `Error executing tool ${toolName}: `;
  return errorResult(`${head}${error.message}${suffix}`, info);
}

/**
 * C7: hides everything about an unexpected exception. The client sees only the tool name and a
 * reference id; the full error goes to the logger under the same id.
 */
export function maskInternalError(
  error: unknown,
  toolName: string,
  options: ErrorResultOptions = {},
): { ref: string; result: ErrorToolResult } {
  const ref = options.ref ?? newErrorRef();
  (options.logger ?? stderrErrorLogger).error({ ref, tool: toolName, err: error }, `Error executing tool ${toolName}`);
  const result = errorResult(`Error executing tool ${toolName} (ref ${ref})`, {
    kind: "internal",
    code: ErrorCode.internal_error,
    retryable: false,
    ref,
  });
  return { ref, result };
}

/**
 * Turns anything a handler threw into the error result the client should see: a ToolError as it
 * is (C8), a known transient or upstream failure classified (C10) with a reference id, and
 * anything else masked (C7). Usable from a plain SDK `McpServer` callback.
 */
export function toToolErrorResult(error: unknown, toolName: string, options: ErrorResultOptions = {}): ErrorToolResult {
  if (isToolError(error)) return toolErrorResult(toolName, error);
  const classified = classifyError(error);
  if (!classified) return maskInternalError(error, toolName, options).result;
  const ref = options.ref ?? newErrorRef();
  (options.logger ?? stderrErrorLogger).warn(
    { ref, tool: toolName, code: classified.code, err: error },
    `Tool ${toolName} failed: ${classified.code}`,
  );
  return toolErrorResult(toolName, classified, ref);
}
