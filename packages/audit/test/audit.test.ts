import { afterAll, describe, expect, it } from "vitest";
import { type AuditReport, auditServer, RULES, type RuleResult } from "../src/index.js";
import { cleanUp, fixture, STDIO_SERVER, startHttpServer, tempDb } from "./helpers.js";

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
  it("the stdio server scores 100 and passes every rule, in both eras", async () => {
    const report = await auditServer({
      command: process.execPath,
      args: [STDIO_SERVER, "--db", tempDb(), "--log-level", "silent"],
    });
    expect(statuses(report, TOOLSHED_PASSES)).toEqual(Object.fromEntries(TOOLSHED_PASSES.map((id) => [id, "pass"])));
    expect(report.score).toBe(100);
    expect(report.protocol).toMatchObject({ negotiated: "2025-11-25", discovered: ["2026-07-28"] });
    expect(report.counts).toMatchObject({ tools: 15, probedTools: 7, prompts: 3 });
    expect(rule(report, "B5").summary).toMatch(/^JSON-RPC -32602 "Unknown tool: toolshed_audit_no_such_tool_42/);
  });

  it("the HTTP server scores 100 and passes every rule, in both eras", async () => {
    const url = await startHttpServer();
    const report = await auditServer({ url }, { runs: 10 });
    expect(statuses(report, TOOLSHED_PASSES)).toEqual(Object.fromEntries(TOOLSHED_PASSES.map((id) => [id, "pass"])));
    expect(report.score).toBe(100);
    expect(report.target).toBe(url);
    expect(report.protocol).toMatchObject({ negotiated: "2025-11-25", discovered: ["2026-07-28"] });
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
  it("is refused with a message that says so", async () => {
    await expect(
      auditServer({ command: process.execPath, args: [fixture("modern-only.mjs")] }, { timeoutMs: 3000 }),
    ).rejects.toThrow(
      /speaks only MCP 2026-07-28 \(server\/discover answered, initialize did not\); toolshed-audit's client \(SDK 1\.x\) audits servers that accept the 2025 handshake/,
    );
  });
});
