import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, McpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { cappedFetch, cappedText, NoAnswerError } from "./capped-fetch.js";
import { CappedStdioTransport, type Limits, stopChild } from "./stdio-transport.js";
import type { AuditTarget, ProtocolInfo } from "./types.js";

/** The revision of the stateless era, which the SDK 1.x client does not speak. */
export const MODERN_VERSION = "2026-07-28";

/** The audit could not connect; `message` is one line that says what would work. */
export class ConnectError extends Error {
  override name = "ConnectError";
}

/** How one request ended, as the audit judges it. */
export type Outcome =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "error"; code: number; message: string }
  | { kind: "timeout" }
  | { kind: "too_large"; limit: number }
  | { kind: "closed"; message: string };

/** Requests in a row that get no answer before the audit takes the server for gone. */
export const MAX_SILENT = 2;

export interface Connection {
  target: string;
  server: { name?: string; version?: string };
  capabilities: Record<string, unknown>;
  protocol: ProtocolInfo;
  request(method: string, params?: Record<string, unknown>): Promise<Outcome>;
  /** False once the server process or connection is gone. */
  alive(): boolean;
  /** Why the connection is gone, in words, once it is. */
  lost(): string | undefined;
  /** Bytes received so far. */
  received(): number;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: "toolshed-audit", version: "0.1.0" };

function modernBody(id: number) {
  return {
    jsonrpc: "2.0",
    id,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
      },
    },
  };
}

/** The versions a `server/discover` answer lists, from a JSON or SSE body. */
function discoveredVersions(text: string): string[] | undefined {
  const candidates = [
    text,
    ...text
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5)),
  ];
  for (const candidate of candidates) {
    try {
      const message = JSON.parse(candidate) as { result?: { supportedVersions?: unknown } };
      const versions = message.result?.supportedVersions;
      if (Array.isArray(versions)) return versions.filter((v): v is string => typeof v === "string");
    } catch {
      // not JSON: try the next candidate
    }
  }
  return undefined;
}

export function describeTarget(target: AuditTarget): string {
  if ("url" in target) return target.url;
  return [target.command, ...(target.args ?? [])].join(" ");
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let i = 0; i < 5 && current; i++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function innermostMessage(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message.split("\n")[0] || "the request failed" : "the request failed";
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

async function discoverOverHttp(url: string, headers: Record<string, string>, timeoutMs: number, maxBytes: number) {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN_VERSION,
        "mcp-method": "server/discover",
        ...headers,
      },
      body: JSON.stringify(modernBody(1)),
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
  return { status: response.status, versions: response.ok ? discoveredVersions(text) : undefined };
}

function httpFailure(url: string, error: unknown, discovered: string[] | undefined, status?: number): ConnectError {
  if (discovered?.length) {
    return new ConnectError(
      `${url} speaks only MCP ${discovered.join(", ")} (server/discover answered, initialize did not); toolshed-audit's client (SDK 1.x) audits servers that accept the 2025 handshake (revisions 2024-11-05 to 2025-11-25)`,
    );
  }
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

/** Writes `server/discover` to a fresh copy of a stdio server and reads its answer, if any. */
function discoverOverStdio(
  target: { command: string; args?: string[]; env?: Record<string, string>; cwd?: string },
  timeoutMs: number,
  maxBytes: number,
) {
  return new Promise<string[] | undefined>((resolve) => {
    let out = "";
    let done = false;
    const child = spawn(target.command, target.args ?? [], {
      env: { ...process.env, ...target.env },
      cwd: target.cwd,
      stdio: ["pipe", "pipe", "ignore"],
    });
    const finish = (value: string[] | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void stopChild(child);
      resolve(value);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    child.on("error", () => finish(undefined));
    child.on("exit", () => finish(discoveredVersions(out.split("\n")[0] ?? "")));
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.length > maxBytes) return finish(undefined);
      for (const line of out.split("\n").slice(0, -1)) {
        const versions = discoveredVersions(line);
        if (versions) return finish(versions);
      }
    });
    child.stdin.on("error", () => finish(undefined));
    child.stdin.write(`${JSON.stringify(modernBody(1))}\n`);
  });
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

function erasOf(negotiated: string | undefined, discovered: string[] | undefined): string {
  const legacy = negotiated ? `${negotiated} via initialize` : "no 2025-era handshake";
  const modern = discovered?.length
    ? `${discovered.join(", ")} via server/discover`
    : "server/discover not answered (no 2026-07-28)";
  return `${legacy}; ${modern}`;
}

/**
 * Connects the SDK 1.x client, over stdio or Streamable HTTP, and learns which eras the server speaks.
 * Reads at most `maxAnswerBytes` per answer: a longer one closes the connection.
 */
export async function connect(target: AuditTarget, timeoutMs: number, maxAnswerBytes: number): Promise<Connection> {
  const label = describeTarget(target);
  let discovered: string[] | undefined;
  let closed = false;
  let tooLarge = false;
  let lost: string | undefined;
  let received = 0;
  let silent = 0;
  const limits: Limits = {
    maxAnswerBytes,
    onTooLarge: () => {
      tooLarge = true;
      lost ??= `the server sent an answer over ${maxAnswerBytes} bytes (--max-answer); the audit stopped reading and closed the connection`;
      void client.close().catch(() => {});
    },
    onBytes: (count) => {
      received += count;
    },
  };
  let transport: CappedStdioTransport | StreamableHTTPClientTransport;
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
    discovered = probe.versions;
    transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers },
      fetch: cappedFetch(timeoutMs, limits),
    });
  } else {
    transport = new CappedStdioTransport(target, limits);
  }
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  client.onclose = () => {
    closed = true;
    lost ??= "the connection closed (the server exited or dropped it)";
  };
  client.onerror = () => {};
  const recording = new RecordingTransport(transport);
  try {
    await client.connect(recording, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    if (tooLarge)
      throw new ConnectError(
        `${label} answered initialize with more than ${maxAnswerBytes} bytes (--max-answer); the audit read no more`,
      );
    if ("url" in target) throw httpFailure(target.url, error, discovered);
    const code = causeCode(error);
    if (code === "ENOENT")
      throw new ConnectError(
        `cannot start ${JSON.stringify(target.command)}: no such command; pass the server's command after --, for example -- node dist/server.js`,
      );
    if (code === "EACCES") throw new ConnectError(`cannot start ${JSON.stringify(target.command)}: permission denied`);
    const modern = await discoverOverStdio(target, Math.min(timeoutMs, 5000), maxAnswerBytes);
    if (modern?.length)
      throw new ConnectError(
        `${label} speaks only MCP ${modern.join(", ")} (server/discover answered, initialize did not); toolshed-audit's client (SDK 1.x) audits servers that accept the 2025 handshake (revisions 2024-11-05 to 2025-11-25)`,
      );
    const stderrTail = transport instanceof CappedStdioTransport ? transport.stderrTail : "";
    const lastLine = stderrTail.trim().split("\n").pop()?.slice(0, 300);
    const why =
      error instanceof McpError && error.code === ErrorCode.RequestTimeout
        ? `did not answer initialize in ${timeoutMs} ms (--timeout)`
        : "closed before answering initialize";
    throw new ConnectError(
      `${label} ${why}${lastLine ? `; its last stderr line: ${lastLine}` : ""}; check that the command after -- starts an MCP server on stdio`,
    );
  }
  const request = async (method: string, params: Record<string, unknown> = {}): Promise<Outcome> => {
    if (lost) return { kind: "closed", message: lost };
    try {
      const result = await client.request({ method, params } as never, ResultSchema, { timeout: timeoutMs });
      silent = 0;
      return { kind: "result", result: result as Record<string, unknown> };
    } catch (error) {
      // Requests go one at a time, so the answer that was too large is this one's.
      if (tooLarge) return { kind: "too_large", limit: maxAnswerBytes };
      const outcome = toOutcome(error, !closed);
      silent = outcome.kind === "timeout" ? silent + 1 : 0;
      if (silent >= MAX_SILENT && !lost) {
        lost = `the server stopped answering (${MAX_SILENT} requests in a row got no answer in ${timeoutMs} ms, --timeout); the audit closed the connection`;
        await client.close().catch(() => {});
      }
      return outcome;
    }
  };
  if (!("url" in target)) {
    const modern = await request("server/discover", modernBody(0).params);
    if (modern.kind === "result" && Array.isArray(modern.result.supportedVersions))
      discovered = (modern.result.supportedVersions as unknown[])
        .filter((v): v is string => typeof v === "string")
        .slice(0, 20)
        .map((v) => v.slice(0, 100));
  }
  const negotiated = recording.negotiated;
  const info = client.getServerVersion();
  return {
    target: label,
    server: { name: info?.name?.slice(0, 1000), version: info?.version?.slice(0, 1000) },
    capabilities: (client.getServerCapabilities() ?? {}) as Record<string, unknown>,
    protocol: { negotiated, discovered, eras: erasOf(negotiated, discovered) },
    request,
    alive: () => !closed && !lost,
    lost: () => lost,
    received: () => received,
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

  constructor(private readonly inner: Transport) {
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
    return this.inner.start();
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
