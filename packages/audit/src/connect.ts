import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, McpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { cappedFetch, cappedText, NoAnswerError } from "./capped-fetch.js";
import { causeCode, innermostMessage } from "./error-words.js";
import {
  answerIn,
  CLIENT_INFO,
  type Exchange,
  type HeaderParam,
  headerParamsOf,
  httpExchange,
  MODERN_VERSION,
  modernHeaders,
  paramHeaders,
  serverInfoOf,
  stdioExchange,
  supportedVersions,
  withEnvelope,
} from "./modern.js";
import type { Outcome } from "./outcome.js";
import { CappedStdioTransport, type Limits } from "./stdio-transport.js";
import type { AuditTarget, ProtocolInfo } from "./types.js";

export { MODERN_VERSION } from "./modern.js";
export type { Outcome } from "./outcome.js";

/** The audit could not connect; `message` is one line that says what would work. */
export class ConnectError extends Error {
  override name = "ConnectError";
}

/** Requests in a row that get no answer before the audit takes the server for gone. */
export const MAX_SILENT = 2;

export interface Connection {
  target: string;
  server: { name?: string; version?: string };
  capabilities: Record<string, unknown>;
  protocol: ProtocolInfo;
  /** The request that asks whether the server is still there: ping (2025), server/discover (2026-07-28, which has no ping). */
  heartbeat: "ping" | "server/discover";
  request(method: string, params?: Record<string, unknown>): Promise<Outcome>;
  /** False once the server process or connection is gone. */
  alive(): boolean;
  /** Why the connection is gone, in words, once it is. */
  lost(): string | undefined;
  /** Bytes received so far. */
  received(): number;
  close(): Promise<void>;
}

/** What every connection keeps track of, whichever era it speaks. */
interface Watch {
  closed: boolean;
  tooLarge: boolean;
  lost?: string;
  received: number;
  silent: number;
  /** Ends the connection (set once it exists). */
  close(): Promise<void>;
}

const WHAT_IT_SPEAKS = "toolshed-audit speaks MCP 2026-07-28 and the 2025 revisions (2024-11-05 to 2025-11-25)";

export function describeTarget(target: AuditTarget): string {
  if ("url" in target) return target.url;
  return [target.command, ...(target.args ?? [])].join(" ");
}

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "the host name did not resolve",
  ECONNRESET: "the connection was reset",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host is unreachable",
  UND_ERR_CONNECT_TIMEOUT: "the connection timed out",
};

/** `server/discover` (2026-07-28) before anything else; the answer tells which era to audit in. */
async function discoverOverHttp(url: string, headers: Record<string, string>, timeoutMs: number, maxBytes: number) {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...modernHeaders("server/discover", {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: withEnvelope() }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const code = causeCode(error);
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    const what = timedOut
      ? `no answer in ${timeoutMs} ms`
      : ((code && NETWORK_WORDS[code]) ?? code ?? innermostMessage(error));
    throw new ConnectError(
      `cannot reach ${url}: ${what}${code && what !== code ? ` (${code})` : ""}; start the server, or pass the URL of its Streamable HTTP endpoint (for example --url http://127.0.0.1:3000/mcp)`,
    );
  }
  const text = await cappedText(response, maxBytes).catch(() => "");
  const outcome = answerIn(text, response.headers.get("content-type") ?? "", response.status, 1);
  return { status: response.status, result: outcome.kind === "result" ? outcome.result : undefined };
}

function speaksOnly(label: string, discovered: string[]): ConnectError {
  return new ConnectError(
    `${label} speaks only MCP ${discovered.join(", ")} (server/discover answered, initialize did not); ${WHAT_IT_SPEAKS}`,
  );
}

function httpFailure(url: string, error: unknown, discovered: string[] | undefined, status?: number): ConnectError {
  if (discovered?.length) return speaksOnly(url, discovered);
  if (error instanceof NoAnswerError)
    return new ConnectError(`${url} stopped answering during the handshake: ${error.message}`);
  const code = error instanceof StreamableHTTPError ? error.code : status;
  if (code === 401 || code === 403)
    return new ConnectError(
      `${url} refused the audit (HTTP ${code}); pass credentials, for example --header "Authorization: Bearer <token>"`,
    );
  if (code === 404 || code === 405)
    return new ConnectError(
      `${url} is not an MCP endpoint (HTTP ${code}); Streamable HTTP servers usually serve /mcp, for example --url http://127.0.0.1:3000/mcp`,
    );
  const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return new ConnectError(`cannot start an MCP session with ${url}: ${detail}`);
}

function toOutcome(error: unknown, alive: boolean): Outcome {
  if (error instanceof NoAnswerError) return { kind: "timeout" };
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return { kind: "timeout" };
    if (error.code === ErrorCode.ConnectionClosed || !alive) return { kind: "closed", message: error.message };
    return { kind: "error", code: error.code, message: error.message.replace(/^MCP error -?\d+: /, "") };
  }
  const message = error instanceof Error ? error.message : String(error);
  return alive ? { kind: "error", code: Number.NaN, message } : { kind: "closed", message };
}

/**
 * A request function that keeps the rules every connection shares: once the connection is lost,
 * requests answer "closed"; the answer that was too large is the one being read (requests go one
 * at a time); MAX_SILENT timeouts in a row end the connection.
 */
function watched(
  watch: Watch,
  timeoutMs: number,
  maxAnswerBytes: number,
  send: (method: string, params: Record<string, unknown>) => Promise<Outcome>,
) {
  return async (method: string, params: Record<string, unknown> = {}): Promise<Outcome> => {
    if (watch.lost) return { kind: "closed", message: watch.lost };
    const outcome = await send(method, params);
    if (outcome.kind !== "result" && watch.tooLarge) return { kind: "too_large", limit: maxAnswerBytes };
    watch.silent = outcome.kind === "timeout" ? watch.silent + 1 : 0;
    if (watch.silent >= MAX_SILENT && !watch.lost) {
      watch.lost = `the server stopped answering (${MAX_SILENT} requests in a row got no answer in ${timeoutMs} ms, --timeout); the audit closed the connection`;
      await watch.close().catch(() => {});
    }
    return outcome;
  };
}

function erasOf(audited: string, discovered: string[] | undefined): string {
  if (audited === MODERN_VERSION)
    return `audited in ${MODERN_VERSION}, the newest revision server/discover offered (${(discovered ?? []).join(", ")})`;
  const modern = discovered?.length
    ? `server/discover offered ${discovered.join(", ")}, none of which the audit speaks`
    : "server/discover not answered (no 2026-07-28)";
  return `audited in ${audited} via initialize; ${modern}`;
}

/** A connection in the 2026-07-28 era over `exchange`, from the server's `server/discover` answer. */
function modernConnection(
  label: string,
  discover: Record<string, unknown>,
  exchange: Exchange,
  watch: Watch,
  settings: { timeoutMs: number; maxAnswerBytes: number },
): Connection {
  // Over HTTP a call repeats its x-mcp-header arguments as Mcp-Param-* headers, learnt from tools/list.
  const headerParams = new Map<string, HeaderParam[]>();
  let next = 1;
  const request = watched(watch, settings.timeoutMs, settings.maxAnswerBytes, async (method, params) => {
    const headers = modernHeaders(method, params);
    if (method === "tools/call" && typeof params.name === "string")
      Object.assign(headers, paramHeaders(headerParams.get(params.name) ?? [], params.arguments));
    const outcome = await exchange(next++, method, withEnvelope(params), headers);
    const tools = outcome.kind === "result" && method === "tools/list" ? outcome.result.tools : undefined;
    if (Array.isArray(tools))
      for (const tool of tools as { name?: unknown; inputSchema?: unknown }[]) {
        const found = typeof tool?.name === "string" ? headerParamsOf(tool.inputSchema) : [];
        if (found.length > 0) headerParams.set(tool.name as string, found);
      }
    return outcome;
  });
  const discovered = supportedVersions(discover);
  const capabilities = discover.capabilities;
  return {
    target: label,
    server: serverInfoOf(discover),
    capabilities:
      typeof capabilities === "object" && capabilities !== null ? (capabilities as Record<string, unknown>) : {},
    protocol: { audited: MODERN_VERSION, discovered, eras: erasOf(MODERN_VERSION, discovered) },
    heartbeat: "server/discover",
    request,
    alive: () => !watch.closed && !watch.lost,
    lost: () => watch.lost,
    received: () => watch.received,
    close: () => watch.close(),
  };
}

function startFailure(target: { command: string }, error: unknown): ConnectError {
  const code = causeCode(error);
  if (code === "ENOENT")
    return new ConnectError(
      `cannot start ${JSON.stringify(target.command)}: no such command; pass the server's command after --, for example -- node dist/server.js`,
    );
  if (code === "EACCES") return new ConnectError(`cannot start ${JSON.stringify(target.command)}: permission denied`);
  return new ConnectError(`cannot start ${JSON.stringify(target.command)}: ${innermostMessage(error)}`);
}

const UNSUPPORTED_VERSION = -32022;

/**
 * Connects over stdio or Streamable HTTP in the newest era the server offers: `server/discover`
 * first (as the 2026-07-28 revision asks of a client that speaks both), the 2026-07-28 era when it
 * lists that revision, else the 2025 handshake with the SDK 1.x client. Reads at most
 * `maxAnswerBytes` per answer: a longer one closes the connection.
 */
export async function connect(target: AuditTarget, timeoutMs: number, maxAnswerBytes: number): Promise<Connection> {
  const label = describeTarget(target);
  const settings = { timeoutMs, maxAnswerBytes };
  const watch: Watch = { closed: false, tooLarge: false, received: 0, silent: 0, close: async () => {} };
  const limits: Limits = {
    maxAnswerBytes,
    onTooLarge: () => {
      watch.tooLarge = true;
      watch.lost ??= `the server sent an answer over ${maxAnswerBytes} bytes (--max-answer); the audit stopped reading and closed the connection`;
      void watch.close().catch(() => {});
    },
    onBytes: (count) => {
      watch.received += count;
    },
  };
  if ("url" in target) {
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      throw new ConnectError(
        `--url ${JSON.stringify(target.url)} is not a URL; pass one such as http://127.0.0.1:3000/mcp`,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new ConnectError(`--url must be http:// or https://, got ${url.protocol}`);
    const headers = target.headers ?? {};
    const probe = await discoverOverHttp(url.href, headers, timeoutMs, maxAnswerBytes);
    const discovered = supportedVersions(probe.result);
    if (probe.result && discovered?.includes(MODERN_VERSION))
      return modernConnection(label, probe.result, httpExchange(url.href, headers, timeoutMs, limits), watch, settings);
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers },
      fetch: cappedFetch(timeoutMs, limits),
    });
    return legacyConnection(label, target, transport, false, discovered, watch, settings);
  }
  let transport = new CappedStdioTransport(target, limits);
  try {
    await transport.start();
  } catch (error) {
    throw startFailure(target, error);
  }
  watch.close = () => transport.close();
  const { exchange, release } = stdioExchange(transport, timeoutMs);
  const probe = await exchange("toolshed-audit-discover", "server/discover", withEnvelope(), {});
  const discovered = probe.kind === "result" ? supportedVersions(probe.result) : undefined;
  if (probe.kind === "result" && discovered?.includes(MODERN_VERSION))
    return modernConnection(label, probe.result, exchange, watch, settings);
  if (watch.tooLarge) {
    await transport.close();
    throw new ConnectError(
      `${label} answered server/discover with more than ${maxAnswerBytes} bytes (--max-answer); the audit read no more`,
    );
  }
  if (probe.kind === "error" && probe.code === UNSUPPORTED_VERSION) {
    await transport.close();
    throw new ConnectError(`${label} refused MCP ${MODERN_VERSION} (${probe.message}); ${WHAT_IT_SPEAKS}`);
  }
  // Any other answer, or none: a 2025 server, which gets initialize on the same process; one that
  // exited on the unknown request gets a fresh one.
  let started = true;
  if (release()) {
    transport = new CappedStdioTransport(target, limits);
    started = false;
  }
  return legacyConnection(label, target, transport, started, discovered, watch, settings);
}

/** The 2025 era: the SDK 1.x client's initialize handshake, then its requests. */
async function legacyConnection(
  label: string,
  target: AuditTarget,
  transport: CappedStdioTransport | StreamableHTTPClientTransport,
  started: boolean,
  discovered: string[] | undefined,
  watch: Watch,
  settings: { timeoutMs: number; maxAnswerBytes: number },
): Promise<Connection> {
  const { timeoutMs, maxAnswerBytes } = settings;
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  watch.close = () => client.close();
  client.onclose = () => {
    watch.closed = true;
    watch.lost ??= "the connection closed (the server exited or dropped it)";
  };
  client.onerror = () => {};
  const recording = new RecordingTransport(transport, started);
  try {
    await client.connect(recording, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    if (watch.tooLarge)
      throw new ConnectError(
        `${label} answered initialize with more than ${maxAnswerBytes} bytes (--max-answer); the audit read no more`,
      );
    if ("url" in target) throw httpFailure(target.url, error, discovered);
    if (!started) {
      const code = causeCode(error);
      if (code === "ENOENT" || code === "EACCES") throw startFailure(target, error);
    }
    if (discovered?.length) throw speaksOnly(label, discovered);
    const stderrTail = transport instanceof CappedStdioTransport ? transport.stderrTail : "";
    const lastLine = stderrTail.trim().split("\n").pop()?.slice(0, 300);
    const why = !(error instanceof McpError)
      ? "closed before answering initialize"
      : error.code === ErrorCode.RequestTimeout
        ? `did not answer initialize in ${timeoutMs} ms (--timeout)`
        : error.code === ErrorCode.ConnectionClosed
          ? "closed before answering initialize"
          : `refused initialize (${error.message.replace(/^MCP error /, "JSON-RPC ")}) and answered no server/discover that lists 2026-07-28`;
    throw new ConnectError(
      `${label} ${why}${lastLine ? `; its last stderr line: ${lastLine}` : ""}; check that the command after -- starts an MCP server on stdio`,
    );
  }
  const request = watched(watch, timeoutMs, maxAnswerBytes, async (method, params) => {
    try {
      const result = await client.request({ method, params } as never, ResultSchema, { timeout: timeoutMs });
      return { kind: "result", result: result as Record<string, unknown> };
    } catch (error) {
      return toOutcome(error, !watch.closed);
    }
  });
  const negotiated = recording.negotiated ?? "an unknown revision";
  const info = client.getServerVersion();
  return {
    target: label,
    server: { name: info?.name?.slice(0, 1000), version: info?.version?.slice(0, 1000) },
    capabilities: (client.getServerCapabilities() ?? {}) as Record<string, unknown>,
    protocol: {
      audited: negotiated,
      negotiated: recording.negotiated,
      discovered,
      eras: erasOf(negotiated, discovered),
    },
    heartbeat: "ping",
    request,
    alive: () => !watch.closed && !watch.lost,
    lost: () => watch.lost,
    received: () => watch.received,
    close: async () => {
      await client.close().catch(() => {});
    },
  };
}

/** Passes messages through and notes the revision the initialize answer settled on. */
class RecordingTransport implements Transport {
  negotiated: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];

  constructor(
    private readonly inner: Transport,
    /** The transport was started to send server/discover first. */
    private readonly started = false,
  ) {
    inner.onmessage = (message: JSONRPCMessage, extra) => {
      const result = (message as { result?: { protocolVersion?: unknown } }).result;
      if (this.negotiated === undefined && typeof result?.protocolVersion === "string")
        this.negotiated = result.protocolVersion;
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }
  get sessionId() {
    return this.inner.sessionId;
  }
  start() {
    return this.started ? Promise.resolve() : this.inner.start();
  }
  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]) {
    return this.inner.send(message, options);
  }
  close() {
    return this.inner.close();
  }
  setProtocolVersion(version: string) {
    this.inner.setProtocolVersion?.(version);
  }
}
