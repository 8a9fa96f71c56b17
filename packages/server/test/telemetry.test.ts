// OpenTelemetry spans and metrics through @opentelemetry/api (issue 14, item 2), in both eras.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { DataPoint, Histogram } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { captureLogger, telemetryPack, useTestTelemetry } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "../src/index.js";
import type { Answer, CallScope } from "../src/internal.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_SPAN}-01`;

const pack = telemetryPack;

const telemetry = useTestTelemetry();

let server: ToolshedServer | undefined;
let client: Client | undefined;
let logs: ReturnType<typeof captureLogger>;

beforeEach(() => {
  logs = captureLogger(createLogger);
  server = createServer({ name: "otel", version: "1.0.0", packs: [pack], logger: logs.logger });
});

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

type Era = "2025" | "2026-07-28";
const ERAS: Era[] = ["2025", "2026-07-28"];

/** Calls a tool in one era: the in-memory client (2025) or core.dispatch as a 2026-07-28 transport does. */
async function callTool(era: Era, name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}) {
  const s = server as ToolshedServer;
  if (era === "2025") {
    client ??= await connectInMemory(s);
    return client.callTool({ name, arguments: args, _meta: meta });
  }
  const scope: CallScope = { signal: new AbortController().signal, logger: logs.logger };
  const answer: Answer = await s.core.dispatch(
    {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: { ...MODERN_META, ...meta },
      },
    },
    scope,
  );
  if (!("result" in answer)) throw new Error(answer.error.message);
  return answer.result;
}

function spansNamed(name: string): ReadableSpan[] {
  return telemetry.spans.getFinishedSpans().filter((s) => s.name === name);
}

function onlySpan(name: string): ReadableSpan {
  const spans = spansNamed(name);
  expect(spans, `spans named ${name}: ${telemetry.spans.getFinishedSpans().map((s) => s.name)}`).toHaveLength(1);
  return spans[0] as ReadableSpan;
}

/** Every string a span carries: its attributes, its status message and its events. */
function textsOf(span: ReadableSpan): string {
  return JSON.stringify([span.attributes, span.status, span.events]);
}

async function collect(name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await telemetry.reader().collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []) as DataPoint<unknown>[];
}

describe.each(ERAS)("era %s", (era) => {
  it("a successful tool call is one SERVER span 'tools/call add' parented on the traceparent in _meta", async () => {
    await callTool(era, "add", { a: 1, b: 2 }, { traceparent: TRACEPARENT });
    const span = onlySpan("tools/call add");
    expect(span.kind).toBe(1); // SpanKind.SERVER
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    expect(span.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "add",
      "gen_ai.operation.name": "execute_tool",
      "toolshed.outcome": "ok",
    });
    expect(typeof span.attributes["jsonrpc.request.id"]).toBe("string");
    expect(span.attributes["error.type"]).toBeUndefined();
    expect(span.status.code).toBe(0); // UNSET
    if (era === "2026-07-28") expect(span.attributes["mcp.protocol.version"]).toBe("2026-07-28");
  });

  it("invalid arguments: error.type invalid_arguments and the class, never the message", async () => {
    const result = (await callTool(era, "add", { a: 1, b: 999 })) as { isError?: boolean };
    expect(result.isError).toBe(true);
    const span = onlySpan("tools/call add");
    expect(span.attributes).toMatchObject({
      "error.type": "invalid_arguments",
      "toolshed.error.code": "invalid_arguments",
      "toolshed.error.kind": "validation",
      "toolshed.error.retryable": false,
      "toolshed.outcome": "validation",
    });
    expect(textsOf(span)).not.toContain("at most 100");
    expect(span.status.code).toBe(0);
  });

  it("a masked internal error: ERROR status, the reference id, and the exception's text nowhere", async () => {
    const result = (await callTool(era, "boom", {})) as { _meta?: Record<string, { ref?: string }> };
    const ref = result._meta?.["toolshed.dev/error"]?.ref;
    expect(ref).toMatch(/^[0-9a-f]{8}$/);
    const span = onlySpan("tools/call boom");
    expect(span.status.code).toBe(2); // ERROR
    expect(span.attributes).toMatchObject({
      "error.type": "internal_error",
      "toolshed.error.kind": "internal",
      "toolshed.error.ref": ref,
      "toolshed.outcome": "internal",
    });
    expect(textsOf(span)).not.toContain("hunter2");
    expect(textsOf(span)).not.toContain("db.internal");
  });

  it("a partial batch is outcome partial, not an error", async () => {
    await callTool(era, "bulk", {});
    const span = onlySpan("tools/call bulk");
    expect(span.attributes["toolshed.outcome"]).toBe("partial");
    expect(span.attributes["error.type"]).toBeUndefined();
  });

  it("an unknown tool is a JSON-RPC error span: error.type -32602, ERROR status", async () => {
    await expect(callTool(era, "nope", {})).rejects.toThrow(/Unknown tool/);
    const span = onlySpan("tools/call nope");
    expect(span.attributes["error.type"]).toBe("-32602");
    expect(span.status.code).toBe(2);
  });

  it("records mcp.server.operation.duration and toolshed.tool.calls by tool and outcome", async () => {
    await callTool(era, "add", { a: 1, b: 2 });
    await callTool(era, "add", { a: 2, b: 2 });
    await callTool(era, "add", { a: 1, b: 999 });
    await callTool(era, "boom", {});
    await callTool(era, "bulk", {});
    await expect(callTool(era, "nope", {})).rejects.toThrow();
    const calls = await collect("toolshed.tool.calls");
    const counts = Object.fromEntries(
      calls.map((p) => [`${p.attributes["gen_ai.tool.name"]} ${p.attributes["toolshed.outcome"]}`, p.value]),
    );
    expect(counts).toEqual({ "add ok": 2, "add validation": 1, "boom internal": 1, "bulk partial": 1 });
    const durations = await collect("mcp.server.operation.duration");
    const byKey = Object.fromEntries(
      durations
        .filter((p) => p.attributes["mcp.method.name"] === "tools/call")
        .map((p) => [
          `${p.attributes["gen_ai.tool.name"]} ${p.attributes["error.type"]}`,
          (p.value as Histogram).count,
        ]),
    );
    // An unknown tool's name is the client's: it is left out of metric attributes.
    expect(byKey).toEqual({
      "add undefined": 2,
      "add invalid_arguments": 1,
      "boom internal_error": 1,
      "bulk undefined": 1,
      "undefined -32602": 1,
    });
  });
});

describe("client-made values (issue 36: /metrics cardinality, span sizes)", () => {
  async function dispatch(method: string, params: Record<string, unknown>, id: string | number = 7) {
    const scope: CallScope = { signal: new AbortController().signal, logger: logs.logger };
    return (server as ToolshedServer).core.dispatch({ jsonrpc: "2.0", id, method, params }, scope);
  }

  it("made-up methods and protocol versions are _OTHER in metrics, so they add no time series", async () => {
    for (let i = 0; i < 50; i++) {
      await dispatch(`x/made-up-${i}`, {});
      await dispatch("tools/list", { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": `v${i}` } });
    }
    await dispatch("tools/list", { _meta: MODERN_META });
    const durations = await collect("mcp.server.operation.duration");
    const series = durations.map((p) => `${p.attributes["mcp.method.name"]} ${p.attributes["mcp.protocol.version"]}`);
    expect(new Set(series)).toEqual(new Set(["_OTHER undefined", "tools/list _OTHER", "tools/list 2026-07-28"]));
    const made = durations.find((p) => p.attributes["mcp.method.name"] === "_OTHER");
    expect((made?.value as Histogram | undefined)?.count).toBe(50);
  });

  it("span names and attributes keep at most 256 characters of a client-made id, name, method or version", async () => {
    const long = "n".repeat(100_000);
    await dispatch("tools/call", { name: long, arguments: {}, _meta: MODERN_META }, "i".repeat(100_000));
    await dispatch(`m/${long}`, {});
    const spans = telemetry.spans.getFinishedSpans();
    expect(spans).toHaveLength(2);
    for (const span of spans) {
      expect(span.name.length).toBeLessThanOrEqual(256);
      for (const value of Object.values(span.attributes)) expect(String(value).length).toBeLessThanOrEqual(256);
      // The status message is the client's error, which names the unknown tool (issue 58.10).
      expect(span.status.message?.length ?? 0).toBeLessThanOrEqual(256);
      expect(span.events).toEqual([]);
    }
    expect(spans.find((s) => s.name.startsWith("tools/call"))?.status.message).toMatch(/^Unknown tool: n{241}…$/);
    const call = spans.find((s) => s.name.startsWith("tools/call"));
    expect(call?.attributes["gen_ai.tool.name"]).toBe(`${"n".repeat(255)}…`);
    expect(call?.attributes["jsonrpc.request.id"]).toMatch(/^i{255}…$/);
  });

  it("hostile trace context in _meta (a malformed traceparent, 100,000 tracestate and baggage members) is bounded or ignored", async () => {
    const members = Array.from({ length: 100_000 }, (_, i) => `k${i}=v${i}`).join(",");
    await dispatch("tools/call", {
      name: "add",
      arguments: { a: 1, b: 2 },
      _meta: { ...MODERN_META, traceparent: TRACEPARENT, tracestate: members, baggage: members },
    });
    await dispatch("tools/call", {
      name: "add",
      arguments: { a: 1, b: 2 },
      _meta: { ...MODERN_META, traceparent: `00-${"z".repeat(32)}-${PARENT_SPAN}-01` },
    });
    const [hostile, malformed] = spansNamed("tools/call add");
    // W3C trace context keeps at most 32 tracestate members; the span is parented as asked.
    expect(hostile?.spanContext().traceId).toBe(TRACE_ID);
    expect(hostile?.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    expect(hostile?.spanContext().traceState?.serialize().split(",").length ?? 0).toBeLessThanOrEqual(32);
    // A traceparent that is not one starts a new trace.
    expect(malformed?.spanContext().traceId).not.toBe(TRACE_ID);
    expect(malformed?.parentSpanContext).toBeUndefined();
  });
});

describe("options", () => {
  it("tools/list is a span named after the method alone", async () => {
    client = await connectInMemory(server as ToolshedServer);
    await client.listTools();
    expect(onlySpan("tools/list").attributes["mcp.method.name"]).toBe("tools/list");
  });

  it("telemetry: false records nothing", async () => {
    await server?.close();
    server = createServer({ name: "otel", version: "1.0.0", packs: [pack], logger: logs.logger, telemetry: false });
    await callTool("2026-07-28", "add", { a: 1, b: 2 }, { traceparent: TRACEPARENT });
    expect(telemetry.spans.getFinishedSpans()).toEqual([]);
    expect(await collect("toolshed.tool.calls")).toEqual([]);
  });

  it("the HTTP traceparent of the scope is the parent when _meta has none; _meta wins when both", async () => {
    const other = `00-${"a".repeat(32)}-${"b".repeat(16)}-01`;
    const s = server as ToolshedServer;
    const dispatch = (meta: Record<string, unknown>) =>
      s.core.dispatch(
        {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "add",
            arguments: { a: 1, b: 1 },
            _meta: { ...MODERN_META, ...meta },
          },
        },
        { signal: new AbortController().signal, logger: logs.logger, traceContext: { traceparent: other } },
      );
    await dispatch({});
    await dispatch({ traceparent: TRACEPARENT });
    const [fromHeader, fromMeta] = spansNamed("tools/call add");
    expect(fromHeader?.spanContext().traceId).toBe("a".repeat(32));
    expect(fromMeta?.spanContext().traceId).toBe(TRACE_ID);
  });
});

describe("names hidden from the caller (issue 36: /metrics must not say a hidden tool exists)", () => {
  it("a call of a tool canAccess hides from the caller is recorded as of an unknown tool; its own callers' calls keep the name", async () => {
    await server?.close();
    server = createServer({
      name: "otel",
      version: "1.0.0",
      packs: [pack],
      logger: logs.logger,
      canAccess: (auth, target) => !(target.name === "add" && auth?.clientId === "outsider"),
    });
    const as = (clientId: string, name: string) =>
      (server as ToolshedServer).core.dispatch(
        {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name, arguments: { a: 1, b: 2 }, _meta: MODERN_META },
        },
        {
          signal: new AbortController().signal,
          logger: logs.logger,
          authInfo: { clientId, token: `${clientId}-token`, scopes: ["tools:read", "tools:write"] },
        },
      );
    // The outsider's call of the hidden tool, and of one that does not exist, read alike.
    const hidden = await as("outsider", "add");
    const missing = await as("outsider", "add_numbers");
    expect("error" in hidden && hidden.error.code).toBe(-32602);
    expect("error" in missing && missing.error.code).toBe(-32602);
    await as("insider", "add");

    const calls = await collect("toolshed.tool.calls");
    expect(calls.map((p) => `${p.attributes["gen_ai.tool.name"]} ${p.attributes["toolshed.outcome"]}`)).toEqual([
      "add ok",
    ]);
    expect(calls[0]?.value).toBe(1);
    const durations = await collect("mcp.server.operation.duration");
    const byTool = Object.fromEntries(
      durations.map((p) => [
        `${p.attributes["gen_ai.tool.name"]} ${p.attributes["error.type"]}`,
        (p.value as Histogram).count,
      ]),
    );
    expect(byTool).toEqual({ "add undefined": 1, "undefined -32602": 2 });
  });
});
