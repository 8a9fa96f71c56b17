import type { Logger } from "@toolshed/schema";
import { describe, expect, it } from "vitest";
import { MetaKey } from "../era.js";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import { asProtocolError, methodNotFound, modernResult } from "./answer.js";
import type { CallScope } from "./types.js";

const SERVER = { name: "notes", version: "1.0.0" };
const scope = (authenticated: boolean) =>
  ({ signal: new AbortController().signal, ...(authenticated ? { authInfo: { scopes: [] } } : {}) }) as CallScope;

describe("modernResult", () => {
  it("adds resultType, the server's info beside the result's own _meta, and the cache hint", () => {
    const out = modernResult(
      { tools: [], _meta: { mine: 1 } },
      { ttlMs: 5000, scope: undefined },
      scope(false),
      SERVER,
    );
    expect(out).toEqual({
      tools: [],
      resultType: "complete",
      _meta: { mine: 1, [MetaKey.serverInfo]: SERVER },
      ttlMs: 5000,
      cacheScope: "public",
    });
    // No scope given: private for an authenticated caller.
    expect(modernResult({}, { ttlMs: 0, scope: undefined }, scope(true), SERVER).cacheScope).toBe("private");
  });

  it("gives a result without _meta one that holds only the server's info, and leaves the result as it was", () => {
    const result = { content: [], structuredContent: { sum: 5 } };
    const out = modernResult(result, undefined, scope(false), SERVER);
    expect(out).toEqual({ ...result, resultType: "complete", _meta: { [MetaKey.serverInfo]: SERVER } });
    expect(JSON.stringify(out)).toBe(
      '{"content":[],"structuredContent":{"sum":5},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"notes","version":"1.0.0"}}}',
    );
    expect(result).toEqual({ content: [], structuredContent: { sum: 5 } });
  });

  it("puts no cache hint on an answer that is not complete", () => {
    const out = modernResult({ resultType: "input_required" }, { ttlMs: 5000, scope: "public" }, scope(false), SERVER);
    expect(out.resultType).toBe("input_required");
    expect(out).not.toHaveProperty("ttlMs");
  });
});

describe("asProtocolError", () => {
  const logged: unknown[] = [];
  const logger = { error: (...args: unknown[]) => logged.push(args) } as unknown as Logger;

  it("passes JSON-RPC errors; a missing resource is -32602 with exactly {uri} for 2026-07-28 clients", () => {
    const missing = new JsonRpcError(JsonRpcCode.ResourceNotFound, "Resource not found: a://1", { uri: "a://1" });
    expect(asProtocolError(missing, "legacy", "resources/read", { uri: "a://1" }, logger)).toBe(missing);
    const modern = asProtocolError(missing, "modern", "resources/read", { uri: "a://1", extra: 1 }, logger);
    expect([modern.code, modern.message, modern.data]).toEqual([
      JsonRpcCode.InvalidParams,
      "Resource not found: a://1",
      { uri: "a://1" },
    ]);
  });

  it("masks anything else behind a reference that the log and the listener get", () => {
    const heard: string[] = [];
    const masked = asProtocolError(new Error("db password wrong"), "legacy", "tools/list", {}, logger, (_e, ref) =>
      heard.push(ref),
    );
    expect(masked.code).toBe(JsonRpcCode.InternalError);
    expect(masked.message).not.toContain("password");
    expect(heard).toHaveLength(1);
    expect(masked.message).toContain(heard[0] as string);
    expect(JSON.stringify(logged.at(-1))).toContain(heard[0] as string);
  });

  it("an unknown method is -32601", () => {
    expect(methodNotFound().code).toBe(JsonRpcCode.MethodNotFound);
  });
});
