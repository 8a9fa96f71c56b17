import { STATUS_CODES } from "node:http";
import { cappedBody, TooLargeError } from "./capped-fetch.js";
import { failureWords } from "./error-words.js";
import type { Outcome } from "./outcome.js";
import type { CappedStdioTransport } from "./stdio-transport.js";

// The 2026-07-28 era as a client speaks it: no handshake, every request carries the `_meta`
// envelope, and over HTTP the headers that repeat the body (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name, Mcp-Param-*), each POST answered on its own as JSON or an SSE stream.

export const MODERN_VERSION = "2026-07-28";
export const CLIENT_INFO = { name: "toolshed-audit", version: "0.1.0" };

const KEY = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The params with the 2026-07-28 `_meta` envelope added (the audit declares no client capabilities). */
export function withEnvelope(params: Record<string, unknown> = {}): Record<string, unknown> {
  const meta = isRecord(params._meta) ? params._meta : {};
  return {
    ...params,
    _meta: {
      ...meta,
      [KEY.protocolVersion]: MODERN_VERSION,
      [KEY.clientCapabilities]: {},
      [KEY.clientInfo]: CLIENT_INFO,
    },
  };
}

/** The server's name and version from a 2026-07-28 result's `_meta`. */
export function serverInfoOf(result: Record<string, unknown>): { name?: string; version?: string } {
  const info = isRecord(result._meta) ? result._meta[KEY.serverInfo] : undefined;
  if (!isRecord(info)) return {};
  const text = (v: unknown) => (typeof v === "string" ? v.slice(0, 1000) : undefined);
  return { name: text(info.name), version: text(info.version) };
}

/** The versions a `server/discover` result lists, bounded; undefined when it lists none. */
export function supportedVersions(result: Record<string, unknown> | undefined): string[] | undefined {
  const versions = result?.supportedVersions;
  if (!Array.isArray(versions)) return undefined;
  return versions
    .filter((v): v is string => typeof v === "string")
    .slice(0, 20)
    .map((v) => v.slice(0, 100));
}

const SENTINEL = /^=\?base64\?.*\?=$/s;

/**
 * A value as a 2026-07-28 header carries it: plain when it is visible ASCII or inner spaces,
 * otherwise (and when it looks like the sentinel itself) `=?base64?…?=` of its UTF-8.
 */
export function headerValue(text: string): string {
  const plain = /^[\x20-\x7e]*$/.test(text) && text.trim() === text && !SENTINEL.test(text);
  return plain ? text : `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;
}

/** One `x-mcp-header` parameter of a tool: the header name and where its value sits in the arguments. */
export interface HeaderParam {
  name: string;
  path: string[];
}

/** The `x-mcp-header` parameters of an input schema, reached from the root through `properties` alone. */
export function headerParamsOf(schema: unknown): HeaderParam[] {
  const found: HeaderParam[] = [];
  const walk = (node: unknown, path: string[]) => {
    if (!isRecord(node) || !isRecord(node.properties) || path.length > 16) return;
    for (const [key, sub] of Object.entries(node.properties)) {
      if (!isRecord(sub)) continue;
      const name = sub["x-mcp-header"];
      if (typeof name === "string" && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name))
        found.push({ name, path: [...path, key] });
      walk(sub, [...path, key]);
    }
  };
  walk(schema, []);
  return found.slice(0, 50);
}

/** The `Mcp-Param-*` headers of a call: one per parameter that has a value. */
export function paramHeaders(params: HeaderParam[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    let value: unknown = args;
    for (const key of param.path) value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
    if (value === undefined || value === null) continue;
    const text = typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
    headers[`mcp-param-${param.name.toLowerCase()}`] = headerValue(text);
  }
  return headers;
}

/** The headers of one 2026-07-28 POST: version, method, and the name the body targets. */
export function modernHeaders(method: string, params: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = { "mcp-protocol-version": MODERN_VERSION, "mcp-method": method };
  const field = method === "resources/read" ? "uri" : method === "tools/call" || method === "prompts/get" ? "name" : "";
  const name = field ? params[field] : undefined;
  if (typeof name === "string") headers["mcp-name"] = headerValue(name);
  return headers;
}

/** The JSON-RPC messages of an SSE body, in order (`data:` lines of one event joined). */
function sseMessages(text: string): unknown[] {
  const messages: unknown[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
    if (data.length === 0) continue;
    try {
      messages.push(JSON.parse(data.join("\n")));
    } catch {
      // an event that is not JSON is not an answer
    }
  }
  return messages;
}

/** How a JSON-RPC answer message with this id ends, or undefined when the message is not one. */
export function outcomeOf(message: unknown, id: string | number | null): Outcome | undefined {
  if (!isRecord(message) || message.id !== id) return undefined;
  if (isRecord(message.result)) return { kind: "result", result: message.result };
  if (isRecord(message.error)) {
    const code = typeof message.error.code === "number" ? message.error.code : Number.NaN;
    const text = typeof message.error.message === "string" ? message.error.message : "";
    return { kind: "error", code, message: text };
  }
  return undefined;
}

/** The answer to request `id` in an HTTP body, JSON or SSE; an error outcome that says what came instead. */
export function answerIn(text: string, contentType: string, status: number, id: string | number): Outcome {
  let messages: unknown[];
  if (contentType.startsWith("text/event-stream")) messages = sseMessages(text);
  else {
    try {
      messages = [JSON.parse(text)];
    } catch {
      messages = [];
    }
  }
  for (const message of messages) {
    const outcome = outcomeOf(message, id);
    if (outcome) return outcome;
  }
  // A request refused before its id was read (HTTP 4xx) is answered with id null.
  const refused = messages.length === 1 ? outcomeOf(messages[0], null) : undefined;
  if (refused?.kind === "error") return refused;
  const what =
    text.trim() === "" ? "an empty body" : `${contentType.split(";")[0] || "a body"} that is no answer to it`;
  const words = STATUS_CODES[status];
  return { kind: "error", code: Number.NaN, message: `HTTP ${status}${words ? ` ${words}` : ""} with ${what}` };
}

/** Sends one request and resolves with how it ended; never rejects. */
export type Exchange = (
  id: string | number,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
) => Promise<Outcome>;

/** Budget and byte count for the answers read. */
export interface ReadLimits {
  maxAnswerBytes: number;
  onBytes(count: number): void;
  onTooLarge(): void;
}

/** Each request a POST of its own to `url`, with the caller's headers (credentials) beside the era's. */
export function httpExchange(
  url: string,
  extra: Record<string, string>,
  timeoutMs: number,
  limits: ReadLimits,
): Exchange {
  return async (id, method, params, headers) => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          ...extra,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
        signal,
      });
      const text = response.body
        ? await new Response(cappedBody(response.body, limits.maxAnswerBytes, limits.onBytes, limits.onTooLarge)).text()
        : "";
      return answerIn(text, response.headers.get("content-type") ?? "", response.status, id);
    } catch (error) {
      if (signal.aborted) return { kind: "timeout" };
      if (error instanceof TooLargeError || (error as { cause?: unknown }).cause instanceof TooLargeError)
        return { kind: "too_large", limit: limits.maxAnswerBytes };
      return { kind: "closed", message: `the request failed: ${failureWords(error)}` };
    }
  };
}

/**
 * Requests over a started stdio transport, answers matched by id. The transport's own handlers
 * are taken over until `release` gives them back (a legacy server gets the SDK client next).
 */
export function stdioExchange(transport: CappedStdioTransport, timeoutMs: number) {
  const pending = new Map<string | number, (outcome: Outcome) => void>();
  let closed = false;
  transport.onmessage = (message) => {
    const id = (message as { id?: unknown }).id;
    if (typeof id !== "string" && typeof id !== "number") return;
    const outcome = outcomeOf(message, id);
    if (outcome) pending.get(id)?.(outcome);
  };
  transport.onclose = () => {
    closed = true;
    for (const settle of [...pending.values()]) settle({ kind: "closed", message: "the server closed the connection" });
  };
  transport.onerror = () => {};
  const exchange: Exchange = (id, method, params) =>
    new Promise((resolve) => {
      if (closed) return resolve({ kind: "closed", message: "the server closed the connection" });
      const timer = setTimeout(() => settle({ kind: "timeout" }), timeoutMs);
      const settle = (outcome: Outcome) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(outcome);
      };
      pending.set(id, settle);
      transport.send({ jsonrpc: "2.0", id, method, params }).catch(() => {
        settle({ kind: "closed", message: "the server's stdin is closed" });
      });
    });
  const release = () => {
    transport.onmessage = undefined;
    transport.onclose = undefined;
    transport.onerror = undefined;
    return closed;
  };
  return { exchange, release };
}
