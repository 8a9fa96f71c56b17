import { type OtlpReceiver, startOtlpReceiver } from "@toolshed/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connect, killChildren, rawRequest, removeTempDirs, runCli, startServer } from "./helpers.js";
import { parsePrometheus, type Sample } from "./prometheus.js";

afterEach(async () => {
  await killChildren();
});
afterAll(removeTempDirs);

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const otelEnv = (extra: Record<string, string> = {}) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_BSP_SCHEDULE_DELAY: "50",
  OTEL_METRICS_EXPORTER: "none",
  OTEL_LOGS_EXPORTER: "none",
  ...extra,
});

describe("OpenTelemetry from OTEL_* variables", () => {
  it("a tools/call arrives at the OTLP endpoint as a span named after the method and tool", async () => {
    const server = await startServer(["--demo"], { env: otelEnv() });
    expect(server.logs().find((l) => l.msg.startsWith("listening"))?.openTelemetry).toBe(true);
    const { client } = await connect(server.url);
    const result = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(result.isError).toBeUndefined();
    await client.close();

    const span = await receiver.waitForSpan((s) => s.name === "tools/call get_note");
    expect(span.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "get_note" });
    expect(span.resource).toMatchObject({ "service.name": "toolshed-http", "service.version": "0.1.0" });
  });

  it("continues the caller's trace from a W3C traceparent header", async () => {
    const server = await startServer(["--demo"], { env: otelEnv() });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const parent = "b7ad6b7169203331";
    const res = await rawRequest(server.url, {
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
        traceparent: `00-${traceId}-${parent}-01`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "list_notes", arguments: {} },
      }),
    });
    expect(res.status).toBe(200);
    const span = await receiver.waitForSpan((s) => s.name === "tools/call list_notes" && s.traceId === traceId);
    expect(span.parentSpanId).toBe(parent);
  });

  it("flushes buffered spans on SIGTERM", async () => {
    // A schedule delay longer than the test: only the shutdown flush can deliver the span.
    const server = await startServer(["--demo"], { env: otelEnv({ OTEL_BSP_SCHEDULE_DELAY: "600000" }) });
    const { client } = await connect(server.url);
    await client.callTool({ name: "search_notes", arguments: { query: "milk" } });
    await client.close();
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await receiver.waitForSpan((s) => s.name === "tools/call search_notes", 5_000);
  });

  it("OTEL_* values that cannot work stop the start with exit 2 and a hint", async () => {
    const bad = await runCli(["--db", ":memory:"], { OTEL_TRACES_EXPORTER: "jaegr" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'toolshed-http: OTEL_TRACES_EXPORTER="jaegr" names no exporter; use otlp, zipkin, console, none\n',
    );
    const protocol = await runCli(["--db", ":memory:"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
      OTEL_EXPORTER_OTLP_PROTOCOL: "json",
    });
    expect(protocol.code).toBe(2);
    expect(protocol.stderr).toContain('OTEL_EXPORTER_OTLP_PROTOCOL="json" is not an OTLP protocol; use http/protobuf');
  });

  it("OTEL_SDK_DISABLED=true leaves the SDK off", async () => {
    const server = await startServer(["--demo"], { env: otelEnv({ OTEL_SDK_DISABLED: "true" }) });
    expect(server.logs().find((l) => l.msg.startsWith("listening"))?.openTelemetry).toBeUndefined();
  });
});

const scrape = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, contentType: res.headers.get("content-type"), text: await res.text() };
};

/** toolshed_tool_calls samples as "tool outcome" -> count. */
function toolCalls(text: string): Record<string, number> {
  const families = parsePrometheus(text);
  const family = families.get("toolshed_tool_calls_total") ?? families.get("toolshed_tool_calls");
  expect(family?.type).toBe("counter");
  return Object.fromEntries(
    (family?.samples ?? []).map((s: Sample) => [`${s.labels.gen_ai_tool_name} ${s.labels.toolshed_outcome}`, s.value]),
  );
}

describe("--metrics", () => {
  it("serves tool calls by tool and outcome at GET /metrics in the Prometheus text format", async () => {
    const server = await startServer(["--demo", "--metrics"]);
    const { client } = await connect(server.url);
    await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    await client.callTool({ name: "get_note", arguments: { title: "todo" } });
    await client.callTool({ name: "list_notes", arguments: {} });
    const invalid = await client.callTool({ name: "search_notes", arguments: { query: "milk", limit: 999 } });
    expect(invalid.isError).toBe(true);
    await client.close();

    const { status, contentType, text } = await scrape(`${server.base}/metrics`);
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/plain/);
    expect(toolCalls(text)).toEqual({ "get_note ok": 2, "list_notes ok": 1, "search_notes validation": 1 });
    // The server's own vocabulary only: no argument the callers sent.
    for (const sent of ["groceries", "todo", "milk"]) expect(text).not.toContain(sent);
    const families = parsePrometheus(text);
    const duration = [...families.values()].find((f) => f.name.startsWith("mcp_server_operation_duration"));
    expect(duration?.type).toBe("histogram");
  });

  it("--metrics-port serves /metrics on its own port, and the main port does not", async () => {
    const server = await startServer(["--demo", "--metrics-port", "0"]);
    const listening = server.logs().find((l) => l.msg.startsWith("listening"));
    const metricsUrl = listening?.metrics as string;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(metricsUrl).port).not.toBe(String(server.port));
    const { client } = await connect(server.url);
    await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    await client.close();

    const there = await scrape(metricsUrl);
    expect(there.status).toBe(200);
    expect(toolCalls(there.text)).toEqual({ "get_note ok": 1 });
    expect((await scrape(`${server.base}/metrics`)).status).toBe(404);
    expect((await scrape(new URL("/mcp", metricsUrl).href)).status).toBe(404);
  });

  it("/metrics has the Host and Origin checks of /mcp, on the main port and on --metrics-port (DNS rebinding)", async () => {
    for (const args of [["--metrics"], ["--metrics-port", "0"]]) {
      const server = await startServer(["--demo", ...args]);
      const listening = server.logs().find((l) => l.msg.startsWith("listening"));
      const url = new URL(listening?.metrics as string);
      const get = (headers: Record<string, string>) => rawRequest(url.href, { method: "GET", headers });
      const rebinding = await get({ host: `evil.example:${url.port}`, origin: `http://evil.example:${url.port}` });
      expect(rebinding.status).toBe(403);
      expect(JSON.parse(rebinding.text)).toEqual({
        jsonrpc: "2.0",
        error: { code: -32000, message: `Invalid Host header: evil.example:${url.port}` },
        id: null,
      });
      const page = await get({ host: `127.0.0.1:${url.port}`, origin: "https://evil.example" });
      expect(page.status).toBe(403);
      expect(JSON.parse(page.text).error.message).toBe("Invalid Origin header: https://evil.example");
      const scraper = await get({ host: `localhost:${url.port}` });
      expect(scraper.status).toBe(200);
      expect(scraper.headers["content-type"]).toMatch(/^text\/plain/);
    }
  });

  it("without --metrics, /metrics is 404", async () => {
    const server = await startServer(["--demo"]);
    expect((await scrape(`${server.base}/metrics`)).status).toBe(404);
  });
});
