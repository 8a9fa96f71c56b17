// Contender: the ceiling. A bare node:http JSON-RPC responder that computes the same results as
// the MCP servers (same SQL, same result shape) with no protocol checks, validation or framework.
import { createServer } from "node:http";
import { ADD, add, announce, argsOf, GET_NOTE, NOTE_MISSING, openNoteReader, structuredResult } from "./tools.mjs";

const args = argsOf();
const notes = openNoteReader(args.db);

function call(params) {
  if (params?.name === ADD.name) return structuredResult(add(params.arguments));
  if (params?.name === GET_NOTE.name) {
    const note = notes.get(params.arguments?.title);
    return note
      ? structuredResult(note)
      : { isError: true, content: [{ type: "text", text: NOTE_MISSING(params.arguments?.title) }] };
  }
  return undefined;
}

function answer(message) {
  switch (message.method) {
    case "initialize":
      return {
        result: {
          protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "raw-bench", version: "1.0.0" },
        },
      };
    case "tools/list":
      return { result: { tools: [ADD, GET_NOTE].map((t) => ({ name: t.name, description: t.description })) } };
    case "tools/call": {
      const result = call(message.params);
      return result ? { result } : { error: { code: -32602, message: `Unknown tool: ${message.params?.name}` } };
    }
    default:
      return { error: { code: -32601, message: "Method not found" } };
  }
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      return res.end('{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}');
    }
    if (message.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer(message) }));
  });
});
server.listen(Number(args.port), "127.0.0.1", () => announce(`http://127.0.0.1:${args.port}/mcp`));
process.on("SIGTERM", () => process.exit(0));
