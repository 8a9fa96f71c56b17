import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo, Logger, Pack } from "@toolshed/schema";
import {
  connectInMemory,
  createLogger,
  createServer,
  JsonRpcError,
  LATEST_MODERN_VERSION,
  type TaskOptions,
  type ToolshedServer,
} from "@toolshed/server";
import type { CallScope } from "@toolshed/server/internal";
import { z } from "zod";

/**
 * The protocol era a test speaks: the 2025 revisions (an `initialize`d session, as the official
 * SDK client opens it) or 2026-07-28 (stateless requests that carry their version in `_meta`).
 */
export type ProtocolEra = "2025-11-25" | "2026-07-28";

export const PROTOCOL_ERAS: readonly ProtocolEra[] = ["2025-11-25", "2026-07-28"];

export interface ConnectPackOptions {
  /** The era `call`, `request` and `listTools` speak (default `"2025-11-25"`). */
  era?: ProtocolEra;
  /** The server's logger; silent by default, so expected failures do not fill the test output. */
  logger?: Logger;
  /**
   * Scopes of the caller's token, sent with every request as an authenticating transport would
   * (`["tools:read"]` alone sees only read-only tools, C14). Without it, calls carry no credentials.
   */
  scopes?: readonly string[];
  /** Start the server read-only: only tools marked `readOnlyHint: true` are published and accepted. */
  readOnly?: boolean;
  /** Server-wide call timeout in ms (the server's default is 30 000). */
  timeoutMs?: number;
  /**
   * Close the packs (their stores) when the connection closes (default true). False leaves them
   * open, to mount the same pack again.
   */
  closePacks?: boolean;
  /**
   * The tasks extension's store and limits (createServer's `tasks`): a `MemoryTaskStore` of your
   * own to look into, a short `ttlMs`. Requests declare the extension only with `{ tasks: true }`.
   */
  tasks?: TaskOptions;
}

/** A JSON-RPC answer to one request, as it went over the wire. */
export type RpcAnswer =
  | { jsonrpc: "2.0"; id: string | number; result: Record<string, unknown> }
  | { jsonrpc: "2.0"; id: string | number; error: { code: number; message: string; data?: unknown } };

/** A pack on a Toolshed server with an MCP client connected in memory. */
export interface PackConnection extends AsyncDisposable {
  /** The era `call`, `request` and `listTools` speak unless told otherwise. */
  readonly era: ProtocolEra;
  /** The Toolshed server the packs are mounted on. */
  readonly server: ToolshedServer;
  /** The official SDK client (2025 revisions) on the same server, for anything else (resources, prompts, completion). */
  readonly client: Client;
  /** Calls a tool. A tool error is a result with `isError: true`; a protocol error throws a `JsonRpcError`. */
  call(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
  /** Sends any request; resolves to its result, or throws a `JsonRpcError` with the answer's code, message and data. */
  request(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>>;
  /** The JSON-RPC answer to one request, error answers included; never throws for them. */
  answer(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<RpcAnswer>;
  /** Every tool the caller can see (all pages of tools/list). */
  listTools(options?: CallOptions): Promise<Tool[]>;
  /** Closes the client and the server (and the packs, unless `closePacks: false`). */
  close(): Promise<void>;
}

export interface CallOptions {
  /** This request only: the other era. */
  era?: ProtocolEra;
  /** Extra `_meta` of the request (a progress token, trace context). */
  meta?: Record<string, unknown>;
  /**
   * 2026-07-28: declare the tasks extension in this request's client capabilities, so a tool that
   * may run as a task answers with one (then `tasks/get` it with `{ tasks: true }` too).
   */
  tasks?: boolean;
}

const anyResult = z.looseObject({});

/** The `_meta` envelope every 2026-07-28 request carries; with `tasks`, declaring the tasks extension. */
function modernEnvelope(tasks: boolean): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": LATEST_MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { "io.modelcontextprotocol/tasks": {} } } : {},
    "io.modelcontextprotocol/clientInfo": { name: "toolshed-testing", version: "0.0.0" },
  };
}

/** The SDK client's error ("MCP error -32602: ...") as the code, message and data the server sent. */
function rpcErrorOf(error: unknown): { code: number; message: string; data?: unknown } | undefined {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof e?.code !== "number" || typeof e.message !== "string") return undefined;
  const out: { code: number; message: string; data?: unknown } = {
    code: e.code,
    message: e.message.replace(/^MCP error -?\d+: /, ""),
  };
  if (e.data !== undefined) out.data = e.data;
  return out;
}

/** The pack's own `close` left out, so closing the server leaves its store open. */
function withoutClose(pack: Pack): Pack {
  return { ...pack, close: undefined };
}

/**
 * Mounts packs on a Toolshed server and connects a real MCP client in memory: the SDK client
 * for the 2025 revisions, the server's protocol core (as its HTTP transport calls it) for
 * 2026-07-28. Close it with `await using` or `close()`.
 *
 * ```ts
 * await using conn = await connectPack(myPack, { era: "2026-07-28" });
 * const out = expectToolResult(await conn.call("add", { a: 1, b: 2 }));
 * ```
 */
export async function connectPack(
  packs: Pack | readonly Pack[],
  options: ConnectPackOptions = {},
): Promise<PackConnection> {
  const list = Array.isArray(packs) ? (packs as readonly Pack[]) : [packs as Pack];
  const server = createServer({
    name: "toolshed-testing",
    version: "0.0.0",
    packs: options.closePacks === false ? list.map(withoutClose) : list,
    logger: options.logger ?? createLogger({ level: "silent" }),
    telemetry: false,
    ...(options.readOnly ? { readOnly: true } : {}),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.tasks === undefined ? {} : { tasks: options.tasks }),
  });
  const authInfo: AuthInfo | undefined = options.scopes
    ? { token: "toolshed-testing-token", clientId: "toolshed-testing", scopes: [...options.scopes] }
    : undefined;
  let client: Client;
  try {
    client = await connectInMemory(server, {
      clientName: "toolshed-testing",
      ...(authInfo ? { authInfo } : {}),
    });
  } catch (error) {
    await server.close();
    throw error;
  }
  const defaultEra = options.era ?? "2025-11-25";
  let nextId = 0;
  let closed: Promise<void> | undefined;

  async function answer(method: string, params: Record<string, unknown> = {}, callOptions: CallOptions = {}) {
    const era = callOptions.era ?? defaultEra;
    const id = ++nextId;
    if (era === "2026-07-28") {
      const meta = {
        ...(params._meta as Record<string, unknown> | undefined),
        ...callOptions.meta,
        ...modernEnvelope(callOptions.tasks === true),
      };
      const scope: CallScope = { signal: new AbortController().signal, logger: server.logger, era: "modern" };
      if (authInfo) scope.authInfo = authInfo;
      return (await server.core.dispatch(
        { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } },
        scope,
      )) as RpcAnswer;
    }
    const meta = { ...(params._meta as Record<string, unknown> | undefined), ...callOptions.meta };
    const sent = Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params;
    try {
      const result = await client.request({ method, params: sent } as never, anyResult);
      return { jsonrpc: "2.0", id, result } as RpcAnswer;
    } catch (error) {
      const rpc = rpcErrorOf(error);
      if (rpc === undefined) throw error;
      return { jsonrpc: "2.0", id, error: rpc } as RpcAnswer;
    }
  }

  async function request(method: string, params?: Record<string, unknown>, callOptions?: CallOptions) {
    const got = await answer(method, params, callOptions);
    if ("error" in got) throw new JsonRpcError(got.error.code, got.error.message, got.error.data);
    return got.result;
  }

  const close = () => {
    closed ??= (async () => {
      await client.close();
      await server.close();
    })();
    return closed;
  };

  return {
    era: defaultEra,
    server,
    client,
    answer,
    request,
    async call(name, args = {}, callOptions) {
      return (await request("tools/call", { name, arguments: args }, callOptions)) as CallToolResult;
    },
    async listTools(callOptions) {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await request("tools/list", cursor === undefined ? {} : { cursor }, callOptions);
        tools.push(...(page.tools as Tool[]));
        cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
      } while (cursor !== undefined);
      return tools;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
