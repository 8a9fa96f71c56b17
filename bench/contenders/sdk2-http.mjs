// Contender: the official SDK v2 serving entry, createMcpHandler(factory) from
// @modelcontextprotocol/server, behind a small node:http adapter. One endpoint serves both eras:
// 2026-07-28 requests (the `_meta` envelope) on its modern path, 2025 requests on its default
// legacy posture ('stateless': a server and a transport per request, answered over SSE).
// The factory runs on every request by design, so it only builds the McpServer and registers
// the tools: schemas, tool configs and handlers are built once, here.
import { createServer } from "node:http";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { ADD, add, announce, argsOf, GET_NOTE, NOTE_MISSING, openNoteReader, structuredResult } from "./tools.mjs";

const args = argsOf();
const notes = openNoteReader(args.db);

const SERVER_INFO = { name: "sdk2-bench", version: "1.0.0" };
const ADD_CONFIG = { description: ADD.description, inputSchema: ADD.input, outputSchema: ADD.output };
const GET_NOTE_CONFIG = {
  description: GET_NOTE.description,
  inputSchema: GET_NOTE.input,
  outputSchema: GET_NOTE.output,
};
const addTool = async (input) => structuredResult(add(input));
const getNoteTool = async ({ title }) => {
  const note = notes.get(title);
  if (!note) return { isError: true, content: [{ type: "text", text: NOTE_MISSING(title) }] };
  return structuredResult(note);
};

function factory() {
  const server = new McpServer(SERVER_INFO);
  server.registerTool(ADD.name, ADD_CONFIG, addTool);
  server.registerTool(GET_NOTE.name, GET_NOTE_CONFIG, getNoteTool);
  return server;
}

// Rejections and serving failures, which the load would otherwise see only as wrong answers.
const handler = createMcpHandler(factory, { onerror: (error) => process.stderr.write(`sdk2: ${error.message}\n`) });

// The adapter: an IncomingMessage becomes a Fetch Request (body read whole, at most a few hundred
// bytes here), and the Response is written back chunk by chunk, so an SSE body streams.

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

async function toRequest(req, signal) {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const init = { method: req.method, headers, signal };
  if (req.method !== "GET" && req.method !== "HEAD") {
    const body = await readBody(req);
    if (body.length > 0) init.body = body;
  }
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, init);
}

/** Resolves when `res` can take more bytes, or is gone. */
function drained(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

async function writeResponse(res, response) {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return res.end();
  const reader = response.body.getReader();
  // The client went away mid-stream: stop reading, which releases the SDK's per-request pair.
  res.once("close", () => reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value) && !res.destroyed) await drained(res);
  }
  res.end();
}

const http = createServer(async (req, res) => {
  const abort = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  try {
    await writeResponse(res, await handler.fetch(await toRequest(req, abort.signal)));
  } catch (error) {
    process.stderr.write(`sdk2 adapter: ${error.message}\n`);
    if (!res.headersSent) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end('{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}');
    } else res.destroy();
  }
});
http.listen(Number(args.port), "127.0.0.1", () => announce(`http://127.0.0.1:${args.port}/mcp`));
process.on("SIGTERM", () => process.exit(0));
