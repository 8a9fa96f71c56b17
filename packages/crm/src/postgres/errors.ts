import { UnavailableError } from "@toolshed/errors";

// pg and pg-pool report a connection that could not be made in time, or that dropped, as plain
// Errors without a code. pg-pool's "timeout exceeded when trying to connect" is not one: it means
// every pooled connection was busy, which classifyError reports as a busy database.
const CONNECTION_FAILURE = /^(Connection terminated|Client has encountered a connection error|Connection refused)/;

/**
 * Turns pg's code-less connection failures into a retryable UnavailableError naming the CRM
 * database; everything else (SQLSTATEs such as 57014/40001/40P01, ECONNREFUSED) is left for
 * classifyError.
 */
export function toStoreError(error: unknown): unknown {
  // Named here, before classifyError's generic "connection was lost", so the hint says which database.
  if (error instanceof Error && !("code" in error) && CONNECTION_FAILURE.test(error.message)) {
    return new UnavailableError("the CRM database could not be reached", { cause: error });
  }
  return error;
}
