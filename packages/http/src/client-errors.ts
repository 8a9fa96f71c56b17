import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import { HttpErrorCode } from "./http-errors.js";

// A request node:http cannot parse never reaches the pipeline: node answers it itself, with a status
// line and an empty body. These answers say the same in a JSON-RPC error a client can read, and what
// would work.

const ANSWERS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: "Request Header Fields Too Large",
    message:
      "Request Header Fields Too Large: the request's headers exceed the server's limit (node:http's 16 KiB by default); an argument that travels in an Mcp-Param-* header (x-mcp-header) must be short, so send a shorter value",
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: "Request Timeout",
    message: "Request Timeout: the request was not received in time; send it again, whole",
  },
};

const MALFORMED = {
  status: 400,
  reason: "Bad Request",
  message: "Bad Request: the request is not valid HTTP/1.1; send a POST with JSON to the MCP endpoint",
};

/**
 * Answers the requests node:http refuses before any listener runs (headers too large, malformed
 * HTTP, a request too slow to arrive) with a JSON-RPC error body instead of an empty one.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    const answer = (error.code && ANSWERS[error.code]) || MALFORMED;
    // Only where nothing of an answer was written yet: the peer must never see two answers mixed.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code !== "ECONNRESET" && socket.writable && !inFlight?.headersSent) {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        error: { code: HttpErrorCode.Transport, message: answer.message },
        id: null,
      });
      socket.end(
        `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      // A peer that never reads does not keep the socket.
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    socket.destroy();
  });
}
