// Client-side helpers: JSON-RPC over Streamable HTTP with fetch, reading JSON or SSE answers.

export const PROTOCOL_VERSION = "2025-06-18";

export const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": PROTOCOL_VERSION,
};

/** The JSON-RPC messages in an answer body, whether it is JSON or an SSE stream. */
export function messagesOf(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return [JSON.parse(trimmed)].flat();
  return trimmed
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)));
}

export async function post(url, message, headers = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...HEADERS, ...headers },
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

export function callMessage(name, args, id = 1) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/** The text every contender must put in its tools/call answer, as it appears inside the JSON body. */
export function expectedText(value) {
  return JSON.stringify(JSON.stringify(value, null, 2)).slice(1, -1);
}

/** Checks a tools/call answer: not an error, and the text block holds the expected value. */
export function checkCall(message, value) {
  const result = message?.result;
  if (!result) return `no result: ${JSON.stringify(message).slice(0, 200)}`;
  if (result.isError) return `tool error: ${JSON.stringify(result.content).slice(0, 200)}`;
  const text = result.content?.find((c) => c.type === "text")?.text;
  if (text === undefined || JSON.stringify(JSON.parse(text)) !== JSON.stringify(value)) {
    return `wrong answer: ${JSON.stringify(result).slice(0, 200)}`;
  }
  return undefined;
}
