import { type Agent, request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";

export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
} as const;

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface RequestOptions {
  method?: string;
  /** A list sends the header once per value. */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Sent one write each, with no Content-Length (chunked). */
  chunks?: readonly (string | Buffer)[];
  /** Source address, e.g. 127.0.0.2: the server limits failed attempts per client address. */
  localAddress?: string;
  /** Defaults to a fresh connection per request. */
  agent?: Agent;
  timeoutMs?: number;
}

/**
 * The object form, or with a list among the values the raw [name, value, ...] form, which sends
 * such a header once per value (even Host). The raw form adds no Host: give one.
 */
function rawHeaders(headers: Record<string, string | string[]>): Record<string, string | string[]> | string[] {
  if (!Object.values(headers).some(Array.isArray)) return headers;
  return Object.entries(headers).flatMap(([name, value]) => [value].flat().flatMap((v) => [name, v]));
}

/**
 * One HTTP request through node:http, which (unlike fetch) may send any Host header, chunked
 * bodies and pick its source address.
 */
export function request(url: string, options: RequestOptions = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: options.method ?? "POST",
        headers: rawHeaders(options.headers ?? {}),
        agent: options.agent ?? false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on("error", reject);
      },
    );
    req.setTimeout(options.timeoutMs ?? 60_000, () => req.destroy(new Error("client timeout")));
    req.on("error", reject);
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else req.end(options.body);
  });
}

/** A JSON-RPC POST to /mcp with the headers a Streamable HTTP client sends. */
export function post(
  url: string,
  message: unknown,
  headers: Record<string, string | string[]> = {},
  options: Omit<RequestOptions, "headers" | "body"> = {},
): Promise<HttpAnswer> {
  return request(url, {
    ...options,
    headers: { ...MCP_HEADERS, ...headers },
    body: typeof message === "string" || Buffer.isBuffer(message) ? message : JSON.stringify(message),
  });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export const toolCall = (name: string, args: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** The error message of a JSON-RPC error body, or undefined. */
export function errorMessage(answer: HttpAnswer): string | undefined {
  return (answer.json as { error?: { message?: string } } | undefined)?.error?.message;
}

export interface SlowSocket {
  /** Everything the server sent before it closed the connection. */
  received(): string;
  /** Resolves when the server closes the connection (or after `limitMs`, with closed=false). */
  closed(limitMs: number): Promise<{ closed: boolean; afterMs: number }>;
  destroy(): void;
}

/**
 * A raw TCP client that never finishes its request headers: it sends nothing, part of the
 * request line, or one header line every `dripMs` (slowloris).
 */
export function slowClient(port: number, mode: "silent" | "partial-line" | "drip", dripMs = 250): SlowSocket {
  const started = Date.now();
  const socket: Socket = connect(port, "127.0.0.1");
  let received = "";
  let closedAt: number | undefined;
  let drip: NodeJS.Timeout | undefined;
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("latin1");
  });
  // A reset after the server's answer is the server's choice, not a failure of the test.
  socket.on("error", () => {});
  socket.on("close", () => {
    closedAt = Date.now();
    if (drip) clearInterval(drip);
  });
  socket.on("connect", () => {
    if (mode === "partial-line") socket.write("POST /mcp HTT");
    if (mode === "drip") {
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      let n = 0;
      drip = setInterval(() => {
        if (!socket.destroyed) socket.write(`X-Slow-${n++}: a\r\n`);
      }, dripMs);
    }
  });
  return {
    received: () => received,
    closed: (limitMs) =>
      new Promise((resolve) => {
        const poll = setInterval(() => {
          if (closedAt !== undefined || Date.now() - started > limitMs) {
            clearInterval(poll);
            resolve({ closed: closedAt !== undefined, afterMs: (closedAt ?? Date.now()) - started });
          }
        }, 50);
      }),
    destroy: () => {
      if (drip) clearInterval(drip);
      socket.destroy();
    },
  };
}

/**
 * Sends a request over a raw socket and reads the answer even when the server answers early and
 * closes while the body is still being written (a 413 for a 10 MB body): node:http would report
 * only the EPIPE then. Chunked when `contentLength` is undefined.
 */
export function rawExchange(
  port: number,
  head: { path?: string; headers: Record<string, string>; contentLength?: number },
  body: Buffer,
  timeoutMs = 60_000,
): Promise<HttpAnswer & { bytesWritten: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    let settled = false;
    const chunked = head.contentLength === undefined;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const bytesWritten = socket.bytesWritten;
      socket.destroy();
      const parsed = parseHttpAnswer(received);
      if (parsed) resolve({ ...parsed, bytesWritten });
      else reject(error ?? new Error(`no complete HTTP answer: ${received.toString("latin1").slice(0, 200)}`));
    };
    const timer = setTimeout(() => finish(new Error("timeout")), timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (parseHttpAnswer(received)) finish();
    });
    socket.on("error", () => {});
    socket.on("close", () => finish());
    socket.on("connect", async () => {
      const lines = [`POST ${head.path ?? "/mcp"} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
      for (const [name, value] of Object.entries(head.headers)) lines.push(`${name}: ${value}`);
      lines.push(chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${head.contentLength}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      for (let at = 0; at < body.length && !settled && !socket.destroyed; at += 64 * 1024) {
        const piece = body.subarray(at, at + 64 * 1024);
        const ok = socket.write(
          chunked
            ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")])
            : piece,
        );
        if (!ok) await new Promise((r) => socket.once("drain", r).once("close", r));
      }
      if (chunked && !settled && !socket.destroyed) socket.write("0\r\n\r\n");
    });
  });
}

function parseHttpAnswer(data: Buffer): HttpAnswer | undefined {
  const end = data.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine = "", ...headerLines] = data.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers["content-length"] ?? Number.NaN);
  if (!Number.isFinite(length) || data.length - end - 4 < length) return undefined;
  const text = data.subarray(end + 4, end + 4 + length).toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(" ")[1]), headers, text, json };
}
