// Client-side helpers: JSON-RPC over Streamable HTTP with fetch, reading JSON or SSE answers.

// Two protocol eras: a contender declares `era: "modern"` to be loaded with 2026-07-28 requests;
// every other contender gets 2025 requests (`legacy`, the default).
export const PROTOCOL_VERSION = "2025-06-18";
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** The headers of a 2025 request; `headersFor` adds what a 2026-07-28 request carries. */
export const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": PROTOCOL_VERSION,
};

/** The per-request `_meta` envelope of 2026-07-28: only its two required keys. */
export const MODERN_ENVELOPE = Object.freeze({
  "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": Object.freeze({}),
});

/**
 * The headers for `message` in `era`. 2026-07-28 requests repeat the body in headers:
 * MCP-Protocol-Version, Mcp-Method and (tools/call) Mcp-Name, as the v2 client sends them.
 */
export function headersFor(message, era = "legacy") {
  if (era !== "modern") return HEADERS;
  const headers = { ...HEADERS, "mcp-protocol-version": MODERN_PROTOCOL_VERSION, "mcp-method": message.method };
  if (typeof message.params?.name === "string") headers["mcp-name"] = message.params.name;
  return headers;
}

/** The JSON-RPC messages in an answer body, whether it is JSON or an SSE stream. */
export function messagesOf(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return [JSON.parse(trimmed)].flat();
  return trimmed
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)));
}

/** POSTs `message` with the headers of `era`, plus `headers` (a session id, say). */
export async function post(url, message, headers = {}, era = "legacy") {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...headersFor(message, era), ...headers },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, messages: text ? messagesOf(text) : [] };
}

/** initialize + notifications/initialized; returns the headers later requests need (session id). */
export async function openSession(url) {
  const init = await post(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
  });
  if (init.status !== 200 || !init.messages[0]?.result) throw new Error(`initialize failed with ${init.status}`);
  const sessionId = init.headers.get("mcp-session-id");
  const headers = sessionId ? { "mcp-session-id": sessionId } : {};
  await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  return headers;
}

/** A tools/call request; in the modern era its params carry the `_meta` envelope. */
export function callMessage(name, args, id = 1, era = "legacy") {
  const params = era === "modern" ? { name, arguments: args, _meta: MODERN_ENVELOPE } : { name, arguments: args };
  return { jsonrpc: "2.0", id, method: "tools/call", params };
}

/** The text every contender must put in its tools/call answer, as it appears inside the JSON body. */
export function expectedText(value) {
  return JSON.stringify(JSON.stringify(value, null, 2)).slice(1, -1);
}

// Both servers under test write compact JSON, so a complete 2026-07-28 result holds this text.
const COMPLETE = '"resultType":"complete"';

/**
 * The check every body under load must pass: the expected text is in it and, in the modern era,
 * the result says it is complete (a fast wrong or partial answer is a failure).
 */
export function bodyCheck(value, era = "legacy") {
  const marker = expectedText(value);
  if (era !== "modern") return (text) => text.includes(marker);
  return (text) => text.includes(marker) && text.includes(COMPLETE);
}

/**
 * Checks a tools/call answer: not an error, and the text block holds the expected value; in the
 * modern era also `resultType: "complete"` and the server's identity in `_meta`.
 */
export function checkCall(message, value, era = "legacy") {
  const result = message?.result;
  if (!result) return `no result: ${JSON.stringify(message).slice(0, 200)}`;
  if (result.isError) return `tool error: ${JSON.stringify(result.content).slice(0, 200)}`;
  const text = result.content?.find((c) => c.type === "text")?.text;
  if (text === undefined || JSON.stringify(JSON.parse(text)) !== JSON.stringify(value)) {
    return `wrong answer: ${JSON.stringify(result).slice(0, 200)}`;
  }
  if (era === "modern") {
    if (result.resultType !== "complete") return `resultType ${JSON.stringify(result.resultType)}, not "complete"`;
    if (typeof result._meta?.["io.modelcontextprotocol/serverInfo"]?.name !== "string") {
      return `no _meta["io.modelcontextprotocol/serverInfo"] in ${JSON.stringify(result).slice(0, 200)}`;
    }
  }
  return undefined;
}
