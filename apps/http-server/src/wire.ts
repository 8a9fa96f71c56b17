import { readRequestBody, requestBodyTooLargeMessage } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { HttpErrorCode, jsonRpcErrorResponse } from "./http-errors.js";

// The Streamable HTTP rules the SDK's transport enforces, with its status codes and messages,
// shared by the stateless dispatcher and the sessions mode.

/** The header access the checks need: Fetch `Headers`, or node:http's headers behind `nodeHeaders`. */
export interface HeaderReader {
  /** The value for a lower-case name, repeated headers joined with ", "; null when absent. */
  get(name: string): string | null;
}

/** 406 unless Accept lists both JSON and SSE; 415 unless the body is JSON. */
export function checkPostHeaders(headers: HeaderReader): Response | undefined {
  const accept = headers.get("accept");
  // Accept is a comma-separated list, so a substring check is what the SDK does too.
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) {
    return jsonRpcErrorResponse(
      406,
      HttpErrorCode.Transport,
      "Not Acceptable: Client must accept both application/json and text/event-stream",
    );
  }
  if (!isJsonContentType(headers.get("content-type"))) {
    return jsonRpcErrorResponse(
      415,
      HttpErrorCode.Transport,
      "Unsupported Media Type: Content-Type must be application/json",
    );
  }
  return undefined;
}

/** 400 for an MCP-Protocol-Version header this server does not speak; no header is fine. */
export function checkProtocolVersion(headers: HeaderReader): Response | undefined {
  const version = headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return jsonRpcErrorResponse(
      400,
      HttpErrorCode.Transport,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  return undefined;
}

/** The body as text, or the 413/400 answer: Content-Length is checked first, then streamed bytes. */
export async function readBody(request: Request, maxBytes: number): Promise<{ text: string } | { response: Response }> {
  try {
    const body = await readRequestBody(request, maxBytes);
    if (body.tooLarge) {
      return { response: jsonRpcErrorResponse(413, HttpErrorCode.Transport, requestBodyTooLargeMessage(maxBytes)) };
    }
    return { text: body.text };
  } catch {
    return {
      response: jsonRpcErrorResponse(400, HttpErrorCode.Transport, "Bad Request: the request body could not be read"),
    };
  }
}

export function methodNotAllowed(allow: string): Response {
  return jsonRpcErrorResponse(405, HttpErrorCode.Transport, "Method not allowed.", { Allow: allow });
}
