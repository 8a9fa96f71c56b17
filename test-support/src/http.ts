/**
 * Helpers shared by the tests of every workspace package (private, not published; tests import
 * its sources directly). A helper that two test folders need lives here, once.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export async function connect(
  url: string,
  options: { token?: string; headers?: Record<string, string> } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "toolshed-http-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A POST to /mcp without the SDK client's own checks, to see exactly what the server answers. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The JSON-RPC messages of an SSE body, in order. */
export function sseMessages(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n\n")
    .map((event) =>
      event
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n"),
    )
    .filter((data) => data !== "")
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

/** A 2025-era initialize request, as a raw client sends it. */
export const legacyInitialize = (id: number | string = 1, protocolVersion = "2025-06-18") => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** The current protocol revision, stateless. */
export const MODERN_VERSION = "2026-07-28";
/** The `_meta` envelope of a 2026-07-28 request. */
export const modernEnvelope = (capabilities: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  ...extra,
});
const NAME_FIELD: Record<string, string> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/** A 2026-07-28 request with the headers a client sends for it (overridable). */
export function modernPost(
  url: string,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const named = NAME_FIELD[method];
  const body = { jsonrpc: "2.0", id, method, params: { _meta: modernEnvelope(), ...params } };
  return post(url, body, {
    "mcp-protocol-version": MODERN_VERSION,
    "mcp-method": method,
    ...(named ? { "mcp-name": String(params[named]) } : {}),
    ...headers,
  });
}

/** A POST whose answer is an SSE stream read event by event (subscriptions/listen). */
export async function openStream(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string | null; next(): Promise<Record<string, unknown>>; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: "POST",
    signal: controller.signal,
    headers: { ...MCP_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    async next() {
      for (;;) {
        const end = buffered.indexOf("\n\n");
        const [event] = end >= 0 ? sseMessages(buffered.slice(0, end + 2)) : [];
        if (end >= 0) buffered = buffered.slice(end + 2);
        if (event) return event;
        if (end >= 0) continue;
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended");
        buffered += decoder.decode(value, { stream: true });
      }
    },
    close: () => controller.abort(),
  };
}
