import { brandErrorClass } from "./brand.js";
import {
  ErrorCode as Codes,
  type ErrorCode,
  type ErrorKind,
  isRetryableByDefault,
  type ValidationIssue,
} from "./codes.js";

// A registry-wide brand, so errors are recognised even when two copies of this package are loaded.
const TOOL_ERROR_BRAND = Symbol.for("toolshed.dev/ToolError");

export interface ToolErrorOptions {
  code?: ErrorCode;
  retryable?: boolean;
  retryAfterMs?: number;
  cause?: unknown;
  /** Extra data for server-side logs; never sent to the client. */
  data?: Record<string, unknown>;
}

/**
 * A failure the model can act on (C8). Its message reaches the model, so write it as a hint:
 * what was wrong and what would work.
 */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly data: Record<string, unknown> | undefined;
  readonly kind: ErrorKind = "tool";

  constructor(message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ToolError";
    this.code = options.code ?? Codes.tool_error;
    this.retryable = options.retryable ?? isRetryableByDefault(this.code);
    this.retryAfterMs = options.retryAfterMs;
    this.data = options.data;
    Object.defineProperty(this, TOOL_ERROR_BRAND, { value: true });
  }
}

type SubclassOptions = Omit<ToolErrorOptions, "code">;

/** Arguments that passed the schema but make no sense for this call. */
export class InvalidArgumentsError extends ToolError {
  override readonly kind: ErrorKind = "validation";
  readonly issues: ValidationIssue[];
  constructor(message: string, issues: ValidationIssue[] = [], options: SubclassOptions = {}) {
    super(message, { ...options, code: Codes.invalid_arguments, retryable: false });
    this.name = "InvalidArgumentsError";
    this.issues = issues;
  }
}

export class NotFoundError extends ToolError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { ...options, code: Codes.not_found });
    this.name = "NotFoundError";
  }
}

export class ConflictError extends ToolError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { ...options, code: Codes.conflict });
    this.name = "ConflictError";
  }
}

export class PermissionDeniedError extends ToolError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { ...options, code: Codes.permission_denied });
    this.name = "PermissionDeniedError";
  }
}

export class FailedPreconditionError extends ToolError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { ...options, code: Codes.failed_precondition });
    this.name = "FailedPreconditionError";
  }
}

export class RateLimitedError extends ToolError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { ...options, code: Codes.rate_limited });
    this.name = "RateLimitedError";
  }
}

export class TimeoutError extends ToolError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { ...options, code: Codes.timeout });
    this.name = "TimeoutError";
  }
}

export class CancelledError extends ToolError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { ...options, code: Codes.cancelled });
    this.name = "CancelledError";
  }
}

export class UnavailableError extends ToolError {
  constructor(message: string, options: SubclassOptions = {}) {
    super(message, { ...options, code: Codes.unavailable });
    this.name = "UnavailableError";
  }
}

// Names written out: a bundler may rename classes.
for (const [cls, name] of [
  [ToolError, "ToolError"],
  [InvalidArgumentsError, "InvalidArgumentsError"],
  [NotFoundError, "NotFoundError"],
  [ConflictError, "ConflictError"],
  [PermissionDeniedError, "PermissionDeniedError"],
  [FailedPreconditionError, "FailedPreconditionError"],
  [RateLimitedError, "RateLimitedError"],
  [TimeoutError, "TimeoutError"],
  [CancelledError, "CancelledError"],
  [UnavailableError, "UnavailableError"],
] as const) {
  brandErrorClass(cls, name);
}

/** True for a {@link ToolError} from any loaded copy of this package. */
export function isToolError(value: unknown): value is ToolError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[TOOL_ERROR_BRAND] === true;
}
