// Contender: the bare SDK (McpServer + StreamableHTTPServerTransport) on node:http.
// `--mode stateless`: the SDK's documented stateless pattern, a new server and transport per request.
// `--mode stateful`: one server and transport per session, found by Mcp-Session-Id.
// Both answer JSON (enableJsonResponse), as Toolshed does, so the wire work is the same.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { sdkServer } from "./sdk-server.mjs";
import { announce, argsOf, openNoteReader } from "./tools.mjs";

const args = argsOf();
const notes = openNoteReader(args.db);

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (error) {
        reject(error);
      }
    });
    req.on("error", reject);
  });
}

function badRequest(res, message) {
  res.writeHead(400, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

const sessions = new Map();

async function stateless(req, res, body) {
  const server = sdkServer(notes);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

async function stateful(req, res, body) {
  const id = req.headers["mcp-session-id"];
  let transport = typeof id === "string" ? sessions.get(id) : undefined;
  if (!transport) {
    if (id !== undefined || req.method !== "POST" || !isInitializeRequest(body)) {
      return badRequest(res, "Bad Request: No valid session ID provided");
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await sdkServer(notes).connect(transport);
  }
  await transport.handleRequest(req, res, body);
}

const handle = args.mode === "stateful" ? stateful : stateless;
const http = createServer(async (req, res) => {
  try {
    const body = req.method === "POST" ? await readJson(req) : undefined;
    await handle(req, res, body);
  } catch {
    if (!res.headersSent) badRequest(res, "Bad Request");
  }
});
http.listen(Number(args.port), "127.0.0.1", () => announce(`http://127.0.0.1:${args.port}/mcp`));
process.on("SIGTERM", () => process.exit(0));
