// Middleware around requests and tool, resource and prompt calls (issue 14, item 1), in both eras.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { NotFoundError, RateLimitedError } from "@toolshed/errors";
import { definePack, definePrompt, defineResource, defineResourceTemplate, defineTool } from "@toolshed/schema";
import { captureLogger } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  connectInMemory,
  createLogger,
  createServer,
  JsonRpcCode,
  JsonRpcError,
  type Middleware,
  type MiddlewareContext,
  type ToolshedServer,
} from "../src/index.js";
import type { Answer, CallScope } from "../src/internal.js";

const META = "toolshed.dev/error";
const AUTH = { token: "t", clientId: "client-7", scopes: ["tools:read", "tools:write"] };

/** What each handler was called with, in order. */
let ran: string[] = [];

const notes = definePack({
  name: "notes",
  tools: [
    defineTool({
      name: "find_notes",
      description: "Finds notes whose title contains a text.",
      input: z.object({
        text: z.string().describe("Text to look for"),
        limit: z.number().int().max(50).default(10).describe("At most this many notes"),
      }),
      output: z.object({ titles: z.array(z.string()) }),
      handler: ({ text, limit }) => {
        ran.push(`find_notes ${text} ${limit}`);
        return { titles: [`${text}-1`] };
      },
    }),
    defineTool({
      name: "get_note",
      description: "Returns one note by title.",
      input: z.object({ title: z.string().describe("Exact title") }),
      handler: ({ title }) => {
        ran.push(`get_note ${title}`);
        throw new NotFoundError(`No note '${title}'. Known titles: groceries`);
      },
    }),
  ],
  resources: [
    defineResource({
      uri: "notes://index",
      name: "index",
      description: "Every note title",
      read: () => "groceries",
    }),
    defineResourceTemplate({
      uriTemplate: "note://{title}",
      name: "note",
      description: "One note's body",
      params: z.object({ title: z.string().min(1).describe("Note title") }),
      read: ({ title }) => `body of ${title}`,
    }),
  ],
  prompts: [
    definePrompt({
      name: "summarize",
      description: "Summarize a note",
      args: z.object({
        title: z.string().describe("Note title"),
        style: z.string().default("brief").describe("How to summarize"),
      }),
      render: ({ title, style }) => `Summarize ${title} (${style})`,
    }),
  ],
});

const misc = definePack({
  name: "misc",
  prompts: [
    definePrompt({
      name: "ask_style",
      description: "Asks the user for a style, then renders",
      args: z.object({}),
      render: async (_args, ctx) => {
        const answer = await ctx.elicitInput?.({
          message: "Which style?",
          requestedSchema: { type: "object", properties: { style: { type: "string" } } },
        });
        return `Style: ${String(answer?.content?.style)}`;
      },
    }),
  ],
  tools: [
    defineTool({
      name: "confirm_delete",
      description: "Asks the user before it deletes.",
      input: z.object({}),
      handler: async (_args, ctx) => {
        const answer = await ctx.elicitInput({
          message: "Delete?",
          requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        });
        return answer.action;
      },
    }),
    defineTool({
      name: "three",
      description: "Returns 3.",
      input: z.object({}),
      output: z.number(),
      handler: () => {
        ran.push("three");
        return 3;
      },
    }),
  ],
});

let server: ToolshedServer | undefined;
let client: Client | undefined;
let logs: ReturnType<typeof captureLogger>;

function make(middleware?: Parameters<typeof createServer>[0]["middleware"]): ToolshedServer {
  ran = [];
  logs = captureLogger(createLogger);
  server = createServer({
    name: "mw",
    version: "1.0.0",
    packs: [notes, misc],
    logger: logs.logger,
    ...(middleware ? { middleware } : {}),
  });
  return server;
}

async function connect(s: ToolshedServer, authInfo?: typeof AUTH): Promise<Client> {
  client = await connectInMemory(s, authInfo ? { authInfo } : {});
  return client;
}

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** A middleware that records `<label>:<kind> before` and `… after` in `events`. */
function recorder(label: string, events: string[]): Middleware {
  return async (ctx, next) => {
    events.push(`${label}:${ctx.kind} before`);
    const result = await next();
    events.push(`${label}:${ctx.kind} after`);
    return result;
  };
}

/** One request through the protocol core as a 2026-07-28 transport makes it. */
function modern(
  s: ToolshedServer,
  method: string,
  params: Record<string, unknown> = {},
  id = 1,
  capabilities: Record<string, unknown> = {},
): Promise<Answer> {
  const scope: CallScope = { signal: new AbortController().signal, logger: logs.logger, authInfo: AUTH };
  const body = {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": capabilities,
    },
  };
  return s.core.dispatch({ jsonrpc: "2.0", id, method, params: body }, scope);
}

function resultOf(answer: Answer): Record<string, unknown> {
  if (!("result" in answer)) throw new Error(`expected a result, got ${JSON.stringify(answer)}`);
  return answer.result as Record<string, unknown>;
}

function textOf(result: CallToolResult): string {
  return (result.content[0] as { text: string }).text;
}

describe("order", () => {
  it("runs server-level middleware outside pack-level, first registered outermost, after-next reversed", async () => {
    const events: string[] = [];
    const s = make();
    // Registered A, pack P, then B: B still runs outside P (server level first).
    s.use(recorder("A", events));
    s.use(recorder("P", events), { pack: "notes" });
    s.use(recorder("B", events));
    const c = await connect(s);
    events.length = 0;
    await c.callTool({ name: "find_notes", arguments: { text: "gro" } });
    expect(events).toEqual([
      "A:request before",
      "B:request before",
      "A:tool before",
      "B:tool before",
      "P:tool before",
      "P:tool after",
      "B:tool after",
      "A:tool after",
      "B:request after",
      "A:request after",
    ]);
    expect(ran).toEqual(["find_notes gro 10"]);
  });

  it("runs a pack's middleware only around that pack's calls", async () => {
    const events: string[] = [];
    const s = make([{ use: recorder("P", events), pack: "notes" }]);
    const c = await connect(s);
    await c.callTool({ name: "three", arguments: {} });
    expect(events).toEqual([]);
    await c.callTool({ name: "find_notes", arguments: { text: "x" } });
    await c.readResource({ uri: "notes://index" });
    await c.getPrompt({ name: "summarize", arguments: { title: "x" } });
    expect(events).toEqual([
      "P:tool before",
      "P:tool after",
      "P:resource before",
      "P:resource after",
      "P:prompt before",
      "P:prompt after",
    ]);
  });

  it("runs only at the kinds asked for", async () => {
    const events: string[] = [];
    const s = make([{ use: recorder("T", events), kinds: ["tool"] }]);
    const c = await connect(s);
    await c.listTools();
    await c.callTool({ name: "three", arguments: {} });
    expect(events).toEqual(["T:tool before", "T:tool after"]);
  });
});

describe("what a tool-level middleware sees", () => {
  it("the definition, its pack, the validated arguments with defaults, the caller and the result", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const s = make([
      {
        kinds: ["tool"],
        use: async (ctx, next) => {
          const result = await next();
          if (ctx.kind === "tool") {
            seen.push({
              method: ctx.method,
              era: ctx.era,
              pack: ctx.pack,
              name: ctx.name,
              definition: ctx.definition.name,
              arguments: ctx.arguments,
              client: ctx.authInfo?.clientId,
              aborted: ctx.signal.aborted,
              result,
            });
          }
          return result;
        },
      },
    ]);
    const c = await connect(s, AUTH);
    await c.callTool({ name: "find_notes", arguments: { text: "gro" } });
    expect(seen).toEqual([
      {
        method: "tools/call",
        era: "legacy",
        pack: "notes",
        name: "find_notes",
        definition: "find_notes",
        arguments: { text: "gro", limit: 10 },
        client: "client-7",
        aborted: false,
        result: {
          content: [{ type: "text", text: JSON.stringify({ titles: ["gro-1"] }, null, 2) }],
          structuredContent: { titles: ["gro-1"] },
        },
      },
    ]);
  });

  it("a tool's error as an error result, not a rejection", async () => {
    const results: unknown[] = [];
    const s = make([
      {
        kinds: ["tool"],
        use: async (_ctx, next) => {
          const result = await next();
          results.push(result);
          return result;
        },
      },
    ]);
    const c = await connect(s);
    const answer = (await c.callTool({ name: "get_note", arguments: { title: "nope" } })) as CallToolResult;
    expect(results).toEqual([answer]);
    expect(answer.isError).toBe(true);
    expect(answer._meta?.[META]).toMatchObject({ code: "not_found" });
  });

  it("never invalid arguments: those stop before the handler, and only the request level sees them", async () => {
    const events: string[] = [];
    const requestResults: unknown[] = [];
    const s = make([
      recorder("A", events),
      {
        kinds: ["request"],
        use: async (_ctx, next) => {
          const result = await next();
          requestResults.push(result);
          return result;
        },
      },
    ]);
    const c = await connect(s);
    events.length = 0;
    requestResults.length = 0;
    const answer = (await c.callTool({ name: "find_notes", arguments: { text: "x", limit: 999 } })) as CallToolResult;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/^Invalid arguments for tool find_notes:\nlimit: /);
    expect(events).toEqual(["A:request before", "A:request after"]);
    expect(requestResults).toEqual([answer]);
    expect(ran).toEqual([]);
  });
});

describe("short-circuit and errors at tool level", () => {
  it("answers with a returned value without running the handler", async () => {
    const cached: CallToolResult = { content: [{ type: "text", text: "from cache" }] };
    const s = make([{ kinds: ["tool"], use: async () => cached }]);
    const c = await connect(s);
    const answer = await c.callTool({ name: "find_notes", arguments: { text: "x" } });
    expect(answer).toEqual(cached);
    expect(ran).toEqual([]);
  });

  it("turns a ToolError into a tool error result with its code and retry class (C8, C9)", async () => {
    const s = make([
      {
        kinds: ["tool"],
        use: async () => {
          throw new RateLimitedError("too many calls for this client; wait a minute", { retryAfterMs: 60_000 });
        },
      },
    ]);
    const c = await connect(s);
    const answer = (await c.callTool({ name: "find_notes", arguments: { text: "x" } })) as CallToolResult;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toBe(
      "Error executing tool find_notes: too many calls for this client; wait a minute; temporary failure, safe to retry after 60 s",
    );
    expect(answer._meta?.[META]).toEqual({ kind: "tool", code: "rate_limited", retryable: true, retryAfterMs: 60_000 });
    expect(answer.structuredContent).toBeUndefined();
    expect(ran).toEqual([]);
  });

  it("masks any other error behind a reference id that is in the log (C7)", async () => {
    const s = make([
      {
        kinds: ["tool"],
        use: async () => {
          throw new Error("audit db password hunter2");
        },
      },
    ]);
    const c = await connect(s);
    const answer = (await c.callTool({ name: "find_notes", arguments: { text: "x" } })) as CallToolResult;
    const meta = answer._meta?.[META] as { kind: string; code: string; retryable: boolean; ref: string };
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toBe(`Error executing tool find_notes (ref ${meta.ref})`);
    expect(meta).toEqual({ kind: "internal", code: "internal_error", retryable: false, ref: meta.ref });
    expect(JSON.stringify(answer)).not.toContain("hunter2");
    const logged = logs.lines.find((l) => l.ref === meta.ref && l.level === 50);
    expect((logged?.err as { message?: string } | undefined)?.message).toBe("audit db password hunter2");
    const toolLine = logs.lines.find((l) => l.msg === "tool call");
    expect(toolLine).toMatchObject({ tool: "find_notes", outcome: "internal", ref: meta.ref });
  });

  it("masks a value that is not a CallToolResult", async () => {
    const s = make([{ kinds: ["tool"], use: async () => 42 }]);
    const c = await connect(s);
    const answer = (await c.callTool({ name: "three", arguments: {} })) as CallToolResult;
    const meta = answer._meta?.[META] as { ref: string };
    expect(textOf(answer)).toBe(`Error executing tool three (ref ${meta.ref})`);
    const logged = logs.lines.find((l) => l.ref === meta.ref);
    expect(logged?.err).toMatchObject({ message: expect.stringContaining("not a CallToolResult") });
  });

  it("rejects a second call of next()", async () => {
    const s = make([
      {
        kinds: ["tool"],
        use: async (_ctx, next) => {
          await next();
          return next();
        },
      },
    ]);
    const c = await connect(s);
    const answer = (await c.callTool({ name: "three", arguments: {} })) as CallToolResult;
    const meta = answer._meta?.[META] as { ref: string };
    expect(meta.ref).toMatch(/^[0-9a-f]+$/);
    const logged = logs.lines.find((l) => l.ref === meta.ref);
    expect(logged?.err).toMatchObject({
      message: "middleware #1 of tool tools/call called next() twice; call it once",
    });
    expect(ran).toEqual(["three"]);
  });
});

describe("resources and prompts", () => {
  it("a resource middleware sees the URI, the template's validated parameters and the result", async () => {
    const seen: unknown[] = [];
    const s = make([
      {
        pack: "notes",
        kinds: ["resource"],
        use: async (ctx, next) => {
          const result = await next();
          if (ctx.kind === "resource") seen.push({ name: ctx.name, uri: ctx.uri, arguments: ctx.arguments, result });
          return result;
        },
      },
    ]);
    const c = await connect(s);
    await c.readResource({ uri: "note://groceries" });
    await c.readResource({ uri: "notes://index" });
    expect(seen).toEqual([
      {
        name: "note",
        uri: "note://groceries",
        arguments: { title: "groceries" },
        result: { contents: [{ uri: "note://groceries", text: "body of groceries" }] },
      },
      {
        name: "index",
        uri: "notes://index",
        arguments: undefined,
        result: { contents: [{ uri: "notes://index", text: "groceries" }] },
      },
    ]);
  });

  it("a prompt middleware sees validated arguments and may answer instead", async () => {
    const seen: unknown[] = [];
    const s = make([
      {
        kinds: ["prompt"],
        use: async (ctx) => {
          if (ctx.kind === "prompt") seen.push(ctx.arguments);
          return { messages: [{ role: "user", content: { type: "text", text: "replaced" } }] };
        },
      },
    ]);
    const c = await connect(s);
    const answer = await c.getPrompt({ name: "summarize", arguments: { title: "todo" } });
    expect(seen).toEqual([{ title: "todo", style: "brief" }]);
    expect(answer.messages).toEqual([{ role: "user", content: { type: "text", text: "replaced" } }]);
  });

  it("a resource middleware's ToolError is the JSON-RPC error a handler's would be; others are masked", async () => {
    const s = make([
      {
        kinds: ["resource"],
        use: async (ctx) => {
          if (ctx.kind === "resource" && ctx.uri === "notes://index") throw new Error("secret path /srv/x");
          throw new RateLimitedError("slow down");
        },
      },
    ]);
    const c = await connect(s);
    await expect(c.readResource({ uri: "note://a" })).rejects.toMatchObject({
      code: JsonRpcCode.InternalError,
      // The SDK client puts "MCP error <code>: " before the server's message.
      message: "MCP error -32603: slow down",
      data: { [META]: { kind: "tool", code: "rate_limited", retryable: true } },
    });
    const masked = (await c.readResource({ uri: "notes://index" }).catch((e: unknown) => e)) as Error & {
      code: number;
    };
    expect(masked.code).toBe(JsonRpcCode.InternalError);
    expect(masked.message).toMatch(/ref [0-9a-f]+/);
    expect(masked.message).not.toContain("secret");
  });
});

describe("request level", () => {
  it("sees every method with the caller's credentials: tools/list, resources/read, prompts/list", async () => {
    const seen: unknown[] = [];
    const s = make([
      {
        kinds: ["request"],
        use: async (ctx, next) => {
          seen.push([ctx.kind, ctx.method, ctx.era, ctx.authInfo?.clientId, typeof ctx.requestId]);
          return next();
        },
      },
    ]);
    const c = await connect(s, AUTH);
    seen.length = 0;
    await c.listTools();
    await c.readResource({ uri: "notes://index" });
    await c.listPrompts();
    expect(seen).toEqual([
      ["request", "tools/list", "legacy", "client-7", "number"],
      ["request", "resources/read", "legacy", "client-7", "number"],
      ["request", "prompts/list", "legacy", "client-7", "number"],
    ]);
  });

  it("shares one state Map between the request and the call inside it", async () => {
    const seen: unknown[] = [];
    const key = Symbol("span");
    const s = make([
      async (ctx, next) => {
        if (ctx.kind === "request") ctx.state.set(key, `span of ${ctx.method} ${String(ctx.requestId)}`);
        else seen.push(ctx.state.get(key));
        return next();
      },
    ]);
    const c = await connect(s);
    await c.callTool({ name: "three", arguments: {} });
    expect(seen).toEqual([expect.stringMatching(/^span of tools\/call \d+$/)]);
  });

  it("answers a thrown JsonRpcError as it is, a ToolError with its class, anything else masked (-32603 with ref)", async () => {
    const s = make([
      {
        kinds: ["request"],
        use: async (ctx, next) => {
          if (ctx.method === "tools/list") throw new JsonRpcError(JsonRpcCode.InvalidRequest, "no lists today");
          if (ctx.method === "prompts/list") throw new RateLimitedError("too many lists");
          if (ctx.method === "resources/list") throw new Error("redis password hunter2");
          return next();
        },
      },
    ]);
    const c = await connect(s);
    await expect(c.listTools()).rejects.toMatchObject({
      code: JsonRpcCode.InvalidRequest,
      message: "MCP error -32600: no lists today",
    });
    await expect(c.listPrompts()).rejects.toMatchObject({
      code: JsonRpcCode.InternalError,
      message: "MCP error -32603: too many lists",
      data: { [META]: { kind: "tool", code: "rate_limited", retryable: true } },
    });
    const masked = (await c.listResources().catch((e: unknown) => e)) as { code: number; message: string };
    expect(masked.code).toBe(JsonRpcCode.InternalError);
    expect(masked.message).not.toContain("hunter2");
    const ref = /ref ([0-9a-f]+)/.exec(masked.message)?.[1];
    expect(ref).toBeDefined();
    expect(logs.lines.some((l) => l.ref === ref && l.method === "resources/list")).toBe(true);
  });

  it("answers with a short-circuit value", async () => {
    const s = make([
      { kinds: ["request"], use: async (ctx, next) => (ctx.method === "tools/list" ? { tools: [] } : next()) },
    ]);
    const c = await connect(s);
    expect((await c.listTools()).tools).toEqual([]);
    expect((await c.listPrompts()).prompts.map((p) => p.name)).toEqual(["summarize", "ask_style"]);
  });
});

describe("2026-07-28 requests through core.dispatch", () => {
  it("run the same chain, with era modern", async () => {
    const events: string[] = [];
    const eras: string[] = [];
    const s = make([
      recorder("A", events),
      async (ctx, next) => {
        eras.push(`${ctx.kind} ${ctx.era} ${ctx.authInfo?.clientId}`);
        return next();
      },
      { use: recorder("P", events), pack: "notes" },
    ]);
    const answer = resultOf(await modern(s, "tools/call", { name: "find_notes", arguments: { text: "gro" } }));
    expect(answer.structuredContent).toEqual({ titles: ["gro-1"] });
    expect(answer.resultType).toBe("complete");
    expect(events).toEqual([
      "A:request before",
      "A:tool before",
      "P:tool before",
      "P:tool after",
      "A:tool after",
      "A:request after",
    ]);
    expect(eras).toEqual(["request modern client-7", "tool modern client-7"]);
    expect(ran).toEqual(["find_notes gro 10"]);
  });

  it("shape a request-level short-circuit value as a 2026-07-28 result", async () => {
    const s = make([
      { kinds: ["request"], use: async (ctx, next) => (ctx.method === "tools/list" ? { tools: [] } : next()) },
    ]);
    const answer = resultOf(await modern(s, "tools/list"));
    expect(answer).toEqual({
      tools: [],
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "mw", version: "1.0.0" } },
    });
  });

  it("see a request with bad params and its JSON-RPC error", async () => {
    const errors: unknown[] = [];
    const s = make([
      {
        kinds: ["request"],
        use: async (_ctx, next) => {
          try {
            return await next();
          } catch (error) {
            errors.push((error as JsonRpcError).code);
            throw error;
          }
        },
      },
    ]);
    const answer = await modern(s, "tools/call", { name: "no_such_tool" });
    expect("error" in answer && answer.error.code).toBe(JsonRpcCode.InvalidParams);
    expect(errors).toEqual([JsonRpcCode.InvalidParams]);
  });

  it("turn a tool-level ToolError into a tool error result", async () => {
    const s = make([
      {
        kinds: ["tool"],
        use: async () => {
          throw new NotFoundError("no such account; list accounts first");
        },
      },
    ]);
    const answer = resultOf(await modern(s, "tools/call", { name: "three", arguments: {} }));
    expect(answer.isError).toBe(true);
    expect((answer.content as Array<{ text: string }>)[0]?.text).toBe(
      "Error executing tool three: no such account; list accounts first",
    );
    expect((answer._meta as Record<string, unknown>)[META]).toEqual({
      kind: "tool",
      code: "not_found",
      retryable: false,
    });
  });
});

describe("2026-07-28 rounds that ask the client (MRTR)", () => {
  it("a tool's middleware sees resultType input_required; the request's sees the full answer", async () => {
    const seen: unknown[] = [];
    const s = make([
      async (ctx, next) => {
        const result = (await next()) as { resultType?: string; inputRequests?: object };
        seen.push([ctx.kind, result.resultType, result.inputRequests === undefined ? "" : "questions"]);
        return result;
      },
    ]);
    const answer = resultOf(
      await modern(s, "tools/call", { name: "confirm_delete", arguments: {} }, 1, { elicitation: {} }),
    );
    expect(answer.resultType).toBe("input_required");
    expect(Object.keys(answer.inputRequests as object)).toEqual(["elicitation-1"]);
    expect(seen).toEqual([
      ["tool", "input_required", ""],
      ["request", "input_required", "questions"],
    ]);
    expect(logs.lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
    const second = resultOf(
      await modern(
        s,
        "tools/call",
        {
          name: "confirm_delete",
          arguments: {},
          requestState: answer.requestState,
          inputResponses: { "elicitation-1": { action: "accept", content: { ok: true } } },
        },
        2,
        { elicitation: {} },
      ),
    );
    expect(second.content).toEqual([{ type: "text", text: "accept" }]);
  });

  it("a prompt's middleware is not left waiting when the prompt asks", async () => {
    const settled: unknown[] = [];
    const s = make([
      {
        kinds: ["prompt"],
        use: async (_ctx, next) => {
          try {
            const result = (await next()) as { resultType?: string };
            settled.push(result.resultType);
            return result;
          } finally {
            settled.push("finally");
          }
        },
      },
    ]);
    const answer = resultOf(
      await modern(s, "prompts/get", { name: "ask_style", arguments: {} }, 1, { elicitation: {} }),
    );
    expect(answer.resultType).toBe("input_required");
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toEqual(["input_required", "finally"]);
  });
});

describe("no middleware, and pass-through middleware", () => {
  const calls: Array<[string, Record<string, unknown>]> = [
    ["tools/list", {}],
    ["tools/call", { name: "find_notes", arguments: { text: "gro" } }],
    ["tools/call", { name: "get_note", arguments: { title: "nope" } }],
    ["tools/call", { name: "find_notes", arguments: { limit: 999 } }],
    ["tools/call", { name: "nope", arguments: {} }],
    ["resources/read", { uri: "note://groceries" }],
    ["resources/read", { uri: "note://" }],
    ["prompts/get", { name: "summarize", arguments: { title: "x" } }],
    ["server/discover", {}],
  ];
  const passThrough: Middleware = (_ctx: MiddlewareContext, next) => next();

  it("answer exactly the same, in the 2026-07-28 era", async () => {
    const plain = make();
    const expected = await Promise.all(calls.map(([m, p], i) => modern(plain, m, p, i)));
    await plain.close();
    const wrapped = make([passThrough, { use: passThrough, pack: "notes" }]);
    const actual = await Promise.all(calls.map(([m, p], i) => modern(wrapped, m, p, i)));
    // Masked refs are random; nothing here is masked.
    expect(actual).toEqual(expected);
    expect(JSON.stringify(expected)).not.toContain("ref ");
  });

  it("answer exactly the same, on a 2025 connection", async () => {
    const answers = async (s: ToolshedServer) => {
      const c = await connect(s);
      const out: unknown[] = [];
      for (const [method, params] of calls.filter(([m]) => m !== "server/discover")) {
        out.push(await c.request({ method, params } as never, z.unknown() as never).catch((e: unknown) => String(e)));
      }
      await c.close();
      return out;
    };
    const expected = await answers(make());
    await server?.close();
    const actual = await answers(make([passThrough, { use: passThrough, pack: "notes" }]));
    expect(actual).toEqual(expected);
  });
});

describe("registration", () => {
  it("refuses use() once the server has answered a request, and says when to register", async () => {
    const s = make();
    await connect(s);
    expect(() => s.use(async (_ctx, next) => next())).toThrow(
      "use() was called after the server answered its first request; register middleware before serving: right after createServer, or in createServer({middleware: [...]})",
    );
  });

  it("refuses use() after the first request through the core (an HTTP transport)", async () => {
    const s = make();
    await modern(s, "tools/list");
    expect(() => s.use(async (_ctx, next) => next())).toThrow(/after the server answered its first request/);
  });

  it("names the mounted packs when a pack is unknown, and refuses request-level pack middleware", () => {
    const s = make();
    expect(() => s.use(async (_ctx, next) => next(), { pack: "tickets" })).toThrow(
      'use(): no pack named "tickets" on this server; mounted packs: notes, misc',
    );
    expect(() => s.use(async (_ctx, next) => next(), { pack: "notes", kinds: ["request"] })).toThrow(
      /runs around its calls only/,
    );
    expect(s.use(async (_ctx, next) => next())).toBe(s);
  });
});
