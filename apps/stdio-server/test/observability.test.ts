import { type OtlpReceiver, startOtlpReceiver } from "@toolshed/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, cleanup, INITIALIZE, INITIALIZED, runCli, spawnCli, tempDir } from "./helpers.js";

afterEach(cleanup);

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const otelEnv = (extra: Record<string, string> = {}) =>
  cleanEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_METRIC_EXPORT_INTERVAL: "200",
    // The SDK's most talkative setting: none of it may reach stdout.
    OTEL_LOG_LEVEL: "debug",
    ...extra,
  });

describe("OpenTelemetry over stdio", () => {
  it("a tools/call yields a span at the OTLP endpoint, and stdout carries only JSON-RPC lines", async () => {
    const cli = spawnCli(["--db", tempDir().file("t.db"), "--demo"], otelEnv());
    await cli.waitForLog("ready on stdio");
    cli.send(INITIALIZE);
    cli.send(INITIALIZED);
    cli.send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "get_note", arguments: { title: "groceries" } },
    });
    // Invalid arguments: a tool error the span names by its code, never by its message.
    cli.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_note", arguments: { title: 7 } } });
    await cli.waitForLines(3);
    const span = await receiver.waitForSpan((s) => s.name === "tools/call get_note" && !s.attributes["error.type"]);
    expect(span.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "get_note" });
    const invalid = await receiver.waitForSpan((s) => s.name === "tools/call get_note" && !!s.attributes["error.type"]);
    expect(invalid.attributes).toMatchObject({ "error.type": "invalid_arguments", "toolshed.outcome": "validation" });
    expect(JSON.stringify(invalid.attributes)).not.toContain("must be a string");
    expect(span.resource).toMatchObject({ "service.name": "toolshed-stdio" });
    // Metrics were exported too (interval 200 ms), with the SDK logging at debug all along.
    await expect.poll(() => receiver.paths.includes("/v1/metrics"), { timeout: 10_000 }).toBe(true);

    cli.child.stdin.end();
    expect((await cli.exited).code).toBe(0);
    const lines = cli.lines();
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    // Calls run concurrently: the invalid one may answer first.
    expect(
      cli
        .messages()
        .map((m) => m.id)
        .sort(),
    ).toEqual([1, 2, 3]);
    // The SDK's own diagnostics went to stderr, as JSON log lines.
    expect(cli.stderr()).toContain('"component":"opentelemetry"');
  });

  it("an exporter that would write to stdout is refused with exit 2", async () => {
    const result = await runCli(["--db", ":memory:"], otelEnv({ OTEL_TRACES_EXPORTER: "console" }));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "toolshed-stdio: OTEL_TRACES_EXPORTER=console would write to stdout, which carries MCP messages; use otlp (OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318)\n",
    );
  });

  it("without OTEL_* variables the SDK is not started", async () => {
    const cli = spawnCli(["--db", ":memory:"]);
    await cli.waitForLog("ready on stdio");
    expect(cli.stderr()).not.toContain('"openTelemetry"');
    cli.child.stdin.end();
    await cli.exited;
  });
});
