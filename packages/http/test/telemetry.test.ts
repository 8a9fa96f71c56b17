// Trace context from HTTP headers and the HTTP metrics (issue 14, item 2), over a real node:http server.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { DataPoint } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { definePack, defineTool } from "@toolshed/schema";
import { connect, post, TELEMETRY_SECRET, telemetryPack, useTestTelemetry } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpApp, type HttpApp } from "../src/index.js";

const silent = { error() {}, warn() {}, info() {}, debug() {} };

const pack = definePack({
  name: "math",
  tools: [
    defineTool({
      name: "add",
      description: "Adds two numbers.",
      input: z.object({ a: z.number().describe("First"), b: z.number().describe("Second") }),
      output: z.number(),
      annotations: { readOnlyHint: true },
      handler: ({ a, b }) => a + b,
    }),
  ],
});

const HEADER_TRACE = "a".repeat(32);
const META_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const HEADER_PARENT = `00-${HEADER_TRACE}-${"b".repeat(16)}-01`;
const META_PARENT = `00-${META_TRACE}-00f067aa0ba902b7-01`;

const telemetry = useTestTelemetry();

const apps: HttpApp[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) s.close();
  await Promise.all(apps.splice(0).map((a) => a.close({ graceMs: 0 })));
});

/** An app behind a real node:http server on a free port; its /mcp URL. */
async function serve(options: Parameters<typeof createHttpApp>[0] = {}): Promise<string> {
  const app = createHttpApp({ packs: [pack], logger: silent, ...options });
  apps.push(app);
  const server = createServer(app.nodeListener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

type Era = "2025" | "2026-07-28";

/** A tools/call add POST in one era, with `meta` in params._meta and `headers` on the request. */
function callAdd(url: string, era: Era, meta: Record<string, unknown>, headers: Record<string, string>) {
  return callTool(url, era, "add", { a: 1, b: 2 }, meta, headers);
}

/** A tools/call POST in one era, with `meta` in params._meta and `headers` on the request. */
function callTool(
  url: string,
  era: Era,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const modern = era === "2026-07-28";
  const _meta = modern
    ? {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        ...meta,
      }
    : meta;
  const eraHeaders: Record<string, string> = modern
    ? { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name }
    : {};
  return post(
    url,
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args, _meta } },
    { ...eraHeaders, ...headers },
  );
}

function addSpans(): ReadableSpan[] {
  return telemetry.spans.getFinishedSpans().filter((s) => s.name === "tools/call add");
}

async function points(name: string): Promise<DataPoint<number>[]> {
  const { resourceMetrics } = await telemetry.reader().collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []) as DataPoint<number>[];
}

describe.each(["2025", "2026-07-28"] as Era[])("trace context, era %s (stateless)", (era) => {
  it("the traceparent header is the parent when _meta has none", async () => {
    const url = await serve();
    const res = await callAdd(url, era, {}, { traceparent: HEADER_PARENT });
    expect(res.status).toBe(200);
    const [span] = addSpans();
    expect(span?.spanContext().traceId).toBe(HEADER_TRACE);
    expect(span?.parentSpanContext?.spanId).toBe("b".repeat(16));
  });

  it("_meta's traceparent wins over the header", async () => {
    const url = await serve();
    const res = await callAdd(url, era, { traceparent: META_PARENT }, { traceparent: HEADER_PARENT });
    expect(res.status).toBe(200);
    const [span] = addSpans();
    expect(span?.spanContext().traceId).toBe(META_TRACE);
  });

  it("without either, the span starts a new trace", async () => {
    const url = await serve();
    await callAdd(url, era, {}, {});
    const [span] = addSpans();
    expect(span).toBeDefined();
    expect(span?.spanContext().traceId).not.toBe(HEADER_TRACE);
    expect(span?.parentSpanContext).toBeUndefined();
  });
});

describe.each(["2025", "2026-07-28"] as Era[])("how a call ended, on its span over HTTP, era %s", (era) => {
  const spanOf = (name: string) => {
    const spans = telemetry.spans.getFinishedSpans().filter((s) => s.name === `tools/call ${name}`);
    expect(spans).toHaveLength(1);
    return spans[0] as ReadableSpan;
  };
  const textOf = (span: ReadableSpan) => JSON.stringify([span.attributes, span.status, span.events]);

  it("invalid arguments: error.type invalid_arguments, the outcome, and none of the message", async () => {
    const url = await serve({ packs: [telemetryPack] });
    const res = await callTool(url, era, "add", { a: 1, b: 999 });
    expect(res.status).toBe(200);
    const span = spanOf("add");
    expect(span.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "add",
      "error.type": "invalid_arguments",
      "toolshed.error.retryable": false,
      "toolshed.outcome": "validation",
    });
    expect(textOf(span)).not.toContain("at most 100");
  });

  it("a masked internal error: ERROR status and the answer's reference, never the exception's text", async () => {
    const url = await serve({ packs: [telemetryPack] });
    const res = await callTool(url, era, "boom", {});
    const ref = (res.json as { result: { _meta: Record<string, { ref: string }> } }).result._meta["toolshed.dev/error"]
      ?.ref;
    expect(ref).toMatch(/^[0-9a-f]{8}$/);
    const span = spanOf("boom");
    expect(span.status.code).toBe(2);
    expect(span.attributes).toMatchObject({ "error.type": "internal_error", "toolshed.error.ref": ref });
    expect(textOf(span)).not.toContain(TELEMETRY_SECRET);
    expect(textOf(span)).not.toContain("hunter2");
  });

  it("a partial batch: outcome partial, no error", async () => {
    const url = await serve({ packs: [telemetryPack] });
    await callTool(url, era, "bulk", {});
    const span = spanOf("bulk");
    expect(span.attributes["toolshed.outcome"]).toBe("partial");
    expect(span.attributes["error.type"]).toBeUndefined();
  });
});

describe("trace context, 2025 sessions (SDK transport)", () => {
  it("the traceparent header of a session's request is the parent of its span", async () => {
    const url = await serve({ sessions: true });
    const { client } = await connect(url, { headers: { traceparent: HEADER_PARENT } });
    await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    const [span] = addSpans();
    expect(span?.spanContext().traceId).toBe(HEADER_TRACE);
    expect(span?.attributes["mcp.session.id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect((await points("toolshed.http.sessions.open"))[0]?.value).toBe(1);
    await client.close();
  });
});

describe("HTTP metrics", () => {
  it("counts refused requests by reason: a 401 without a token, a 429 over the rate limit", async () => {
    const url = await serve({ tokens: [{ id: "ci", token: "t0ken-for-tests", scopes: ["tools:read"] }], rateLimit: 1 });
    expect((await callAdd(url, "2025", {}, {})).status).toBe(401);
    const auth = { authorization: "Bearer t0ken-for-tests" };
    expect((await callAdd(url, "2025", {}, auth)).status).toBe(200);
    expect((await callAdd(url, "2025", {}, auth)).status).toBe(429);
    const refused = Object.fromEntries(
      (await points("toolshed.http.requests.refused")).map((p) => [p.attributes.reason, p.value]),
    );
    expect(refused).toEqual({ unauthorized: 1, rate_limited: 1 });
  });

  it("counts requests in flight up and back down", async () => {
    const url = await serve();
    await callAdd(url, "2026-07-28", {}, {});
    await callAdd(url, "2025", {}, {});
    const [inFlight] = await points("toolshed.http.requests.in_flight");
    expect(inFlight?.value).toBe(0);
    // Two requests were counted in and out: a sum of 0 that exists (not a missing metric).
    expect(inFlight).toBeDefined();
  });
});
