import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { admitCalls, parseBody, readPost } from "./post-body.js";

const headers = (h: Record<string, string>) => ({ get: (name: string) => h[name] ?? null });
const goodHeaders = headers({ accept: "application/json, text/event-stream", "content-type": "application/json" });
const call = (id: number): JSONRPCRequest => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "t" } });

describe("readPost", () => {
  it("refuses the wrong Accept (406) or Content-Type (415) before reading the body", async () => {
    let read = false;
    const readBody = async () => {
      read = true;
      return { text: "{}" };
    };
    const a = await readPost(
      { headers: headers({ accept: "application/json", "content-type": "application/json" }), readBody },
      10,
    );
    expect(a.ok || a.response.status).toBe(406);
    const b = await readPost(
      { headers: headers({ accept: "application/json, text/event-stream", "content-type": "text/plain" }), readBody },
      10,
    );
    expect(b.ok || b.response.status).toBe(415);
    expect(read).toBe(false);
  });

  it("passes the body cap to the reader and returns its 413", async () => {
    let asked = 0;
    const tooLarge = new Response("{}", { status: 413 });
    const parsed = await readPost(
      {
        headers: goodHeaders,
        readBody: async (max) => {
          asked = max;
          return { response: tooLarge };
        },
      },
      1234,
    );
    expect(asked).toBe(1234);
    expect(parsed.ok || parsed.response).toBe(tooLarge);
  });
});

describe("parseBody", () => {
  it("answers -32700 for text that is not JSON and -32600 for an empty batch, with HTTP 400", async () => {
    const notJson = parseBody("{nope");
    expect(notJson.ok).toBe(false);
    if (!notJson.ok) {
      expect(notJson.response.status).toBe(400);
      expect(await notJson.response.json()).toMatchObject({ error: { code: -32700 } });
    }
    const empty = parseBody("[]");
    expect(empty.ok || empty.response.status).toBe(400);
  });

  it("keeps valid messages and answers each invalid one of a batch", () => {
    const parsed = parseBody(
      JSON.stringify([call(1), { jsonrpc: "2.0", id: 2 }, { jsonrpc: "2.0", method: "notifications/x" }]),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.batch).toBe(true);
    expect(parsed.messages.map((m) => ("method" in m ? m.method : "?"))).toEqual(["tools/call", "notifications/x"]);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]).toMatchObject({ id: 2, error: { code: -32600 } });
  });

  it("refuses an initialize in a batch", async () => {
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} };
    const parsed = parseBody(JSON.stringify([init, call(2)]));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok)
      expect(await parsed.response.json()).toMatchObject({
        error: { message: "Invalid Request: Only one initialization request is allowed" },
      });
  });
});

describe("admitCalls", () => {
  it("charges a batch for its calls beyond the first, and refuses it whole when the charge is refused", async () => {
    const charged: number[] = [];
    const refusal = new Response(null, { status: 429 });
    const charge = async (n: number) => {
      charged.push(n);
      return n > 2 ? refusal : undefined;
    };
    expect(await admitCalls([call(1), call(2), call(3)], false, { charge })).toBeUndefined();
    expect(await admitCalls([call(1), call(2), call(3), call(4)], false, { charge })).toBe(refusal);
    expect(await admitCalls([call(1)], true, { charge })).toBeUndefined();
    expect(charged).toEqual([2, 3]);
  });

  it("checks only a lone call's scopes, and answers its 403 challenge", async () => {
    const challenge = new Response(null, { status: 403 });
    const seen: unknown[] = [];
    const checkScopes = (request: JSONRPCRequest) => {
      seen.push(request.id);
      return request.id === 1 ? challenge : undefined;
    };
    expect(await admitCalls([call(1)], true, { checkScopes })).toBe(challenge);
    expect(await admitCalls([call(2)], true, { checkScopes })).toBeUndefined();
    // Batches are not challenged: each call is answered by the core.
    expect(await admitCalls([call(3), call(4)], false, { checkScopes })).toBeUndefined();
    expect(seen).toEqual([1, 2]);
  });
});
