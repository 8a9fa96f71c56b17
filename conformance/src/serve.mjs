// Serves Toolshed packs over Streamable HTTP in sessions mode, for the conformance suite:
// one SDK StreamableHTTPServerTransport and one server.connect(transport) per session, on
// node:http. A stand-in until @toolshed/http-server can be started the same way.
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { fileURLToPath } from "node:url";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { createLogger, createServer } from "@toolshed/server";
import { fixturePack } from "./fixture-pack.mjs";

const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Host (and Origin, when sent) must name this machine: DNS rebinding protection. */
function isLocalRequest(req) {
  const host = req.headers.host;
  if (!host) return false;
  let hostname;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  if (!LOCAL_HOSTNAMES.has(hostname)) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return LOCAL_HOSTNAMES.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}

function sendJsonRpcError(res, status, code, message, id = null) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }));
}

async function readBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw Object.assign(new Error("body too large"), { status: 413 });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Starts a sessions-mode Streamable HTTP server for `packs` on `host:port` (port 0: any free port).
 * Returns `{url, port, close}`; `url` ends in `/mcp`.
 */
export async function startFixtureServer({
  packs = [fixturePack],
  host = "127.0.0.1",
  port = 0,
  logLevel = "warn",
} = {}) {
  const toolshed = createServer({
    name: "toolshed-conformance",
    version: "0.0.0",
    packs,
    logger: createLogger({ level: logLevel }),
  });
  /** @type {Map<string, StreamableHTTPServerTransport>} */
  const sessions = new Map();

  const handle = async (req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== "/mcp") return sendJsonRpcError(res, 404, -32601, `Not found: ${path}; the MCP endpoint is /mcp`);
    if (!isLocalRequest(req)) {
      return sendJsonRpcError(res, 403, -32000, "Forbidden: Host and Origin must be localhost, 127.0.0.1 or [::1]");
    }
    let body;
    if (req.method === "POST") {
      const raw = await readBody(req);
      try {
        body = JSON.parse(raw);
      } catch {
        return sendJsonRpcError(res, 400, -32700, "Parse error: the body is not valid JSON");
      }
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = sessions.get(sessionId);
      if (!transport) return sendJsonRpcError(res, 404, -32001, "Session not found");
      return transport.handleRequest(req, res, body);
    }
    if (req.method === "POST" && isInitializeRequest(body)) {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await toolshed.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    return sendJsonRpcError(res, 400, -32000, "Bad Request: no valid session id; start with an initialize request");
  };

  const httpServer = createHttpServer((req, res) => {
    handle(req, res).catch((error) => {
      toolshed.logger.error({ err: error }, "request failed");
      if (!res.headersSent) sendJsonRpcError(res, error?.status ?? 500, -32603, "Internal error");
      else res.end();
    });
  });
  await new Promise((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(port, host, resolve);
  });
  const address = httpServer.address();
  const url = `http://${host}:${address.port}/mcp`;
  return {
    url,
    port: address.port,
    sessions,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      sessions.clear();
      await toolshed.close();
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(() => resolve()));
    },
  };
}

// `node src/serve.mjs [port]`: serve the fixture pack until interrupted.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const server = await startFixtureServer({ port: Number(process.argv[2] ?? 0), logLevel: "info" });
  process.stderr.write(`fixture server listening on ${server.url}\n`);
  const stop = () => server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
