import { classifyError, UnavailableError } from "@toolshed/errors";

// pg and pg-pool report a connection that could not be made in time, or that dropped, as plain
// Errors without a code; classifyError would mask them as internal.
const CONNECTION_FAILURE =
  /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Connection refused)/;

/**
 * Leaves classified failures (ToolErrors, SQLSTATEs such as 57014/40001/40P01, ECONNREFUSED)
 * untouched, and turns pg's code-less connection failures into a retryable UnavailableError.
 */
export function toStoreError(error: unknown): unknown {
  if (classifyError(error) !== undefined) return error;
  if (error instanceof Error && CONNECTION_FAILURE.test(error.message)) {
    return new UnavailableError("the CRM database could not be reached", { cause: error });
  }
  return error;
}
