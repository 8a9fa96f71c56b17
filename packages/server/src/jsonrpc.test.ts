import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkJsonRpcMessage } from "./jsonrpc.js";

// Messages near the edge of what the SDK's schema accepts: right and wrong keys, ids, params and _meta.
const value = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.object());
const message = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant("2.0"), value),
    id: fc.oneof(fc.string(), fc.integer(), fc.double(), value),
    method: fc.oneof(fc.constantFrom("tools/call", "ping", "notifications/initialized", ""), value),
    params: fc.oneof(
      fc.dictionary(fc.constantFrom("name", "arguments", "x"), value),
      fc.record({ _meta: fc.oneof(fc.record({ progressToken: value }, { requiredKeys: [] }), value) }),
      value,
    ),
    result: value,
    error: value,
    extra: value,
  },
  { requiredKeys: [] },
);

describe("checkJsonRpcMessage", () => {
  it("accepts only messages the SDK's JSON-RPC schema accepts, and never drops a request silently", () => {
    fc.assert(
      fc.property(message, (m) => {
        const checked = checkJsonRpcMessage(m);
        if (checked.ok) expect(JSONRPCMessageSchema.safeParse(m).success).toBe(true);
        // A refused request (method and id both present) always gets an answer.
        else if ("method" in m && "id" in m) expect(checked.response).toBeDefined();
      }),
      { numRuns: 3000 },
    );
    // 3,000 generated messages, each also parsed by the SDK's Zod schema: seconds on a loaded 2-core machine.
  }, 60_000);

  it("a progress token beyond the safe integers is left to the SDK's schema, which refuses it", () => {
    for (const progressToken of [-(2 ** 53), 2 ** 53]) {
      const m = { jsonrpc: "2.0", method: "tools/call", params: { _meta: { progressToken } } };
      expect(checkJsonRpcMessage(m).ok).toBe(false);
    }
    const safe = { jsonrpc: "2.0", method: "tools/call", params: { _meta: { progressToken: -(2 ** 53 - 1) } } };
    expect(checkJsonRpcMessage(safe).ok).toBe(true);
  });

  it("passes a plain tools/call through as it came", () => {
    const m = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 1 } } };
    expect(checkJsonRpcMessage(m)).toEqual({ ok: true, message: m });
  });

  it("refuses keys JSON-RPC does not have, with the request's id", () => {
    const checked = checkJsonRpcMessage({ jsonrpc: "2.0", id: 7, method: "ping", extra: 1 });
    expect(checked).toMatchObject({ ok: false, response: { id: 7, error: { code: -32600 } } });
  });
});
