import { connect, post, silentLogger } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExpress } from "../examples/express.js";
import { startFastify } from "../examples/fastify.js";
import { startFetchHandler, startHono } from "../examples/fetch.js";
import type { Started } from "../examples/pack.js";

// Each example serves its pack over real HTTP; the official SDK client and raw requests see the
// same endpoint through every framework.

const TOKEN = "example-token-0123456789abcdef";
const PAGE = "https://app.example";
const options = {
  logger: silentLogger,
  tokens: [{ id: "example", token: TOKEN, scopes: ["tools:read"] }],
  cors: { origins: [PAGE] },
};

const examples = [
  { name: "Express, with express.json() in front", start: startExpress },
  { name: "Fastify", start: startFastify },
  { name: "Hono on @hono/node-server", start: startHono },
  { name: "the bare Fetch handler", start: startFetchHandler },
];

describe.each(examples)("$name", ({ start }) => {
  let started: Started;
  beforeAll(async () => {
    started = await start(0, options);
  });
  afterAll(() => started.close());

  it("the SDK client lists the tool and calls it", async () => {
    const { client } = await connect(started.url, { token: TOKEN });
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["count_words"]);
      const result = await client.callTool({ name: "count_words", arguments: { text: "one two  three" } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ words: 3 });
    } finally {
      await client.close();
    }
  });

  it("a bad argument is a tool error the model can fix", async () => {
    const res = await post(
      started.url,
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "count_words", arguments: { text: 5 } } },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      result: {
        isError: true,
        content: [{ type: "text", text: "Invalid arguments for tool count_words:\ntext: must be a string (got 5)" }],
      },
    });
  });

  it("a request without a token is refused with 401 and a Bearer challenge", async () => {
    const res = await post(started.url, { jsonrpc: "2.0", id: 8, method: "tools/list" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("answers a CORS preflight from an allowed page with 204", async () => {
    const res = await fetch(started.url, {
      method: "OPTIONS",
      headers: {
        origin: PAGE,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")).toContain("authorization");
  });
});
