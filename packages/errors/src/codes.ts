/** The shared list of error codes (CONTRACT C9). */
export const ErrorCode = {
  invalid_arguments: "invalid_arguments",
  tool_error: "tool_error",
  not_found: "not_found",
  conflict: "conflict",
  permission_denied: "permission_denied",
  unauthenticated: "unauthenticated",
  failed_precondition: "failed_precondition",
  too_large: "too_large",
  rate_limited: "rate_limited",
  timeout: "timeout",
  cancelled: "cancelled",
  unavailable: "unavailable",
  partial_failure: "partial_failure",
  internal_error: "internal_error",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Who is at fault: the arguments, the tool's domain, or the server itself. */
export const ErrorKind = {
  validation: "validation",
  tool: "tool",
  internal: "internal",
} as const;

export type ErrorKind = (typeof ErrorKind)[keyof typeof ErrorKind];

/** Codes whose failure may go away when the same call is made again later. */
const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ErrorCode.rate_limited,
  ErrorCode.timeout,
  ErrorCode.unavailable,
  ErrorCode.cancelled,
]);

export function isRetryableByDefault(code: ErrorCode): boolean {
  return RETRYABLE_BY_DEFAULT.has(code);
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ErrorCode, value);
}

/** Key under `_meta` of an error result that holds its {@link ErrorInfo}. */
export const ERROR_META_KEY = "toolshed.dev/error";

/** The machine-readable class of an error result (C9). */
export interface ErrorInfo {
  kind: ErrorKind;
  code: ErrorCode;
  retryable: boolean;
  retryAfterMs?: number;
  ref?: string;
  issues?: ValidationIssue[];
}

/** One problem with a tool's arguments, already phrased as a hint (C6). */
export interface ValidationIssue {
  /** Dotted path of the argument, `""` for the arguments object itself. */
  path: string;
  /** What was wrong and what would work, without the path. */
  message: string;
}
