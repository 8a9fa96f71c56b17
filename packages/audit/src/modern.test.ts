import { describe, expect, it } from "vitest";
import { answerIn, headerParamsOf, headerValue, modernHeaders, paramHeaders, withEnvelope } from "./modern.js";

describe("2026-07-28 header values", () => {
  // The encoding examples of the Streamable HTTP transport (Value Encoding).
  it.each([
    ["us-west1", "us-west1"],
    ["Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="],
    [" padded ", "=?base64?IHBhZGRlZCA=?="],
    ["line1\nline2", "=?base64?bGluZTEKbGluZTI=?="],
    ["=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="],
  ])("%j is sent as %s", (value, header) => {
    expect(headerValue(value)).toBe(header);
  });

  it("names the target of tools/call, prompts/get and resources/read, and nothing else", () => {
    expect(modernHeaders("tools/call", { name: "añadir" })).toEqual({
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "=?base64?YcOxYWRpcg==?=",
    });
    expect(modernHeaders("resources/read", { uri: "notes://1" })["mcp-name"]).toBe("notes://1");
    expect(modernHeaders("tools/list", { name: "x" })["mcp-name"]).toBeUndefined();
  });

  it("repeats x-mcp-header arguments reached through properties, omitting absent ones", () => {
    const schema = {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        route: { type: "object", properties: { shard: { type: "integer", "x-mcp-header": "Shard" } } },
        dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
        list: { type: "array", items: { type: "string", "x-mcp-header": "Ignored" } },
      },
    };
    const params = headerParamsOf(schema);
    expect(params).toEqual([
      { name: "Region", path: ["region"] },
      { name: "Shard", path: ["route", "shard"] },
      { name: "Dry-Run", path: ["dry"] },
    ]);
    expect(paramHeaders(params, { region: "Zürich", route: { shard: 7 }, dry: null })).toEqual({
      "mcp-param-region": "=?base64?WsO8cmljaA==?=",
      "mcp-param-shard": "7",
    });
  });

  it("adds the envelope and keeps the caller's own _meta", () => {
    expect(withEnvelope({ name: "t", _meta: { progressToken: 3 } })).toEqual({
      name: "t",
      _meta: {
        progressToken: 3,
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "toolshed-audit", version: "0.1.0" },
      },
    });
  });
});

describe("answers", () => {
  it("finds the answer to the request in an SSE stream after notifications", () => {
    const text = [
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}',
      'data: {"jsonrpc":"2.0","id":4,\ndata: "result":{"content":[]}}',
      "",
    ].join("\n\n");
    expect(answerIn(text, "text/event-stream", 200, 4)).toEqual({ kind: "result", result: { content: [] } });
  });

  it("reads a JSON-RPC error from a 400 answer, and says what came when there is none", () => {
    const error = '{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"Header mismatch"}}';
    expect(answerIn(error, "application/json", 400, 2)).toEqual({
      kind: "error",
      code: -32020,
      message: "Header mismatch",
    });
    expect(answerIn("", "", 431, 2)).toMatchObject({
      message: "HTTP 431 Request Header Fields Too Large with an empty body",
    });
    expect(answerIn("<html>", "text/html; charset=utf-8", 502, 2)).toMatchObject({
      message: "HTTP 502 Bad Gateway with text/html that is no answer to it",
    });
    expect(answerIn(error, "application/json", 400, 3).kind).toBe("error");
    const refused = '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Request Header Fields Too Large"}}';
    expect(answerIn(refused, "application/json", 431, 3)).toEqual({
      kind: "error",
      code: -32000,
      message: "Request Header Fields Too Large",
    });
  });
});
