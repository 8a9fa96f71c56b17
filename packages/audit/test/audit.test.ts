import { afterAll, describe, expect, it } from "vitest";
import { type AuditReport, auditServer, RULES, type RuleResult } from "../src/index.js";
import { cleanUp, fixture, STDIO_SERVER, startFixtureServer, startHttpServer, tempDb } from "./helpers.js";

afterAll(cleanUp);

const rule = (report: AuditReport, id: string): RuleResult => {
  const found = report.rules.find((r) => r.id === id);
  if (!found) throw new Error(`no rule ${id}`);
  return found;
};
const statuses = (report: AuditReport, ids: string[]) =>
  Object.fromEntries(ids.map((id) => [id, rule(report, id).status]));
const evidence = (report: AuditReport, id: string) =>
  rule(report, id).findings.map((f) => `${f.subject}: ${f.message}`);

// Every rule: Toolshed's own servers with the three packs score 100 (docs/audit.md).
const TOOLSHED_PASSES = RULES.map((r) => r.id);

describe("Toolshed's own servers", () => {
  it("the stdio server scores 100 and passes every rule, audited in 2026-07-28", async () => {
    const report = await auditServer({
      command: process.execPath,
      args: [STDIO_SERVER, "--db", tempDb(), "--log-level", "silent"],
    });
    expect(statuses(report, TOOLSHED_PASSES)).toEqual(Object.fromEntries(TOOLSHED_PASSES.map((id) => [id, "pass"])));
    expect(report.score).toBe(100);
    expect(report.protocol).toEqual({
      audited: "2026-07-28",
      discovered: ["2026-07-28"],
      eras: "audited in 2026-07-28, the newest revision server/discover offered (2026-07-28)",
    });
    expect(report.server).toEqual({ name: "toolshed", version: expect.any(String) });
    expect(report.counts).toMatchObject({ tools: 16, probedTools: 7, prompts: 3 });
    expect(rule(report, "B6").summary).toMatch(/^server\/discover and tools\/list answered after \d+ calls$/);
    expect(rule(report, "B5").summary).toMatch(/^JSON-RPC -32602 "Unknown tool: toolshed_audit_no_such_tool_42/);
  });

  it("the HTTP server scores 100 and passes every rule, audited in 2026-07-28", async () => {
    const url = await startHttpServer();
    const report = await auditServer({ url }, { runs: 10 });
    expect(statuses(report, TOOLSHED_PASSES)).toEqual(Object.fromEntries(TOOLSHED_PASSES.map((id) => [id, "pass"])));
    expect(report.score).toBe(100);
    expect(report.target).toBe(url);
    expect(report.protocol).toMatchObject({ audited: "2026-07-28", discovered: ["2026-07-28"] });
    expect(report.protocol.negotiated).toBeUndefined();
    expect(report.counts).toMatchObject({ tools: 16, probedTools: 7, prompts: 3 });
  });
});

describe("a deliberately bad SDK McpServer", () => {
  it("fails the definition rules with the tool and the field as evidence", async () => {
    const report = await auditServer({ command: process.execPath, args: [fixture("sdk-server.mjs")] });
    expect(statuses(report, ["D3", "D5", "D6", "D7", "D8", "B5", "B6"])).toEqual({
      D3: "fail",
      D5: "fail",
      D6: "fail",
      D7: "fail",
      D8: "fail",
      B5: "fail",
      B6: "pass",
    });
    expect(evidence(report, "D6")).toEqual(["lookup: key is a string with no maxLength or enum"]);
    // A 2025 server: server/discover is refused (-32601), so the SDK client's initialize follows.
    expect(report.protocol).toEqual({
      audited: "2025-11-25",
      negotiated: "2025-11-25",
      eras: "audited in 2025-11-25 via initialize; server/discover not answered (no 2026-07-28)",
    });
    expect(rule(report, "B6").summary).toBe("ping and tools/list answered after 1 call");
    expect(evidence(report, "D8")).toEqual([
      "lookup: no readOnlyHint: clients must assume it writes, and read-only modes cannot offer it",
    ]);
    expect(evidence(report, "D7")[0]).toContain('$schema "http://json-schema.org/draft-07/schema#"');
    expect(evidence(report, "B5")[0]).toContain(
      'isError result "MCP error -32602: Tool toolshed_audit_no_such_tool_42 not found"',
    );
    // Not marked read-only: nothing is called without --allow-writes.
    expect(rule(report, "B4")).toMatchObject({ status: "skip", summary: expect.stringContaining("--allow-writes") });
    expect(report.counts).toMatchObject({ probedTools: 0, calls: 1 });
  });

  it("with allowWrites, finds the file path its exception leaks", async () => {
    const report = await auditServer(
      { command: process.execPath, args: [fixture("sdk-server.mjs")] },
      { allowWrites: true, runs: 10 },
    );
    expect(rule(report, "B4").status).toBe("fail");
    expect(evidence(report, "B4")[0]).toMatch(
      /^lookup: \d+ of \d+ calls; e\.g\. answer shows an absolute file path: "\/home\/app\/db\.sqlite" in isError result "ENOENT: no such file or directory/,
    );
    expect(report.score).toBeLessThan(60);
  });
});

describe("a FastMCP server", () => {
  it("runs on this Node, and its invalid-argument and unknown-tool answers are protocol errors", async () => {
    const report = await auditServer({ command: process.execPath, args: [fixture("fastmcp-server.mjs")] }, { runs: 5 });
    expect(report.server).toEqual({ name: "fastmcp-fixture", version: "0.0.1" });
    expect(report.counts).toMatchObject({ tools: 2, probedTools: 1 });
    expect(rule(report, "B1").status).toBe("fail");
    expect(evidence(report, "B1")[0]).toMatch(/^add: \d+ of \d+ calls; e\.g\. a of the wrong type: JSON-RPC -32602 /);
    expect(evidence(report, "B5")[0]).toContain("JSON-RPC -32601");
    expect(evidence(report, "D8")).toEqual([
      "save_note: no readOnlyHint: clients must assume it writes, and read-only modes cannot offer it",
    ]);
    expect(rule(report, "B6").status).toBe("pass");
  });
});

describe("a server that speaks only 2026-07-28", () => {
  it("is audited in 2026-07-28 over stdio, every request in the _meta envelope", async () => {
    // The fixture refuses a request without the envelope (-32602) and has no ping: B1 and B6 pass only
    // when the audit speaks the revision.
    const report = await auditServer({ command: process.execPath, args: [fixture("modern-only.mjs")] });
    expect(report.protocol).toMatchObject({ audited: "2026-07-28", discovered: ["2026-07-28"] });
    expect(report.server).toEqual({ name: "modern-only", version: "1.0.0" });
    expect(statuses(report, ["D6", "B1", "B2", "B3", "B5", "B6"])).toEqual({
      D6: "pass",
      B1: "pass",
      B2: "pass",
      B3: "pass",
      B5: "pass",
      B6: "pass",
    });
    expect(report.score).toBe(100);
    expect(rule(report, "B5").summary).toBe(
      'JSON-RPC -32602 "Unknown tool: toolshed_audit_no_such_tool_42; the only tool is shout"',
    );
  });

  it("repeats an x-mcp-header argument as its Mcp-Param header over HTTP", async () => {
    // Toolshed's HTTP server refuses a call whose Mcp-Param-Region does not say the body's region
    // (HTTP 400, -32020); the invalid and hostile calls get tool errors only when the header is right.
    const url = await startFixtureServer("header-server.mjs");
    const report = await auditServer({ url }, { runs: 20 });
    expect(report.protocol.audited).toBe("2026-07-28");
    expect(report.counts).toMatchObject({ tools: 1, probedTools: 1 });
    expect(statuses(report, ["B1", "B2", "B4", "B5", "B6"])).toEqual({
      B1: "pass",
      B2: "pass",
      B4: "pass",
      B5: "pass",
      B6: "pass",
    });
    // Only strings too long for any header fail: node:http refuses them (431) before the app sees them.
    const hostile = evidence(report, "B3");
    expect(hostile).toHaveLength(1);
    expect(hostile[0]).toMatch(
      /^region_status: \d+ of 20 calls; e\.g\. region = "[^"]*… \(\d{5,} chars\): JSON-RPC -32000 "Request Header Fields Too Large: the request's headers exceed the server's limit/,
    );
    expect(hostile.join("\n")).not.toContain("Header mismatch");
  });
});
