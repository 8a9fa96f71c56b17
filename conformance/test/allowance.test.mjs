// How run.mjs judges a scenario: as the suite does, with one narrow allowance for --url servers
// (server-stateless's checks that need a fixture's diagnostic tool).
import { describe, expect, it } from "vitest";
import { judge } from "../run.mjs";

const untestable = (id) => ({ id, status: "FAILURE", errorMessage: "Not testable: …", details: { untestable: true } });
const failure = (id) => ({ id, status: "FAILURE", errorMessage: "Expected -32021, got -32603" });
const success = (id) => ({ id, status: "SUCCESS" });
const CAPABILITY = "sep-2575-server-rejects-undeclared-capability";

describe("judge", () => {
  it("fails a scenario on a FAILURE check, not on warnings or skipped checks", () => {
    const warning = { id: "sep-2164-data-uri", status: "WARNING" };
    const skipped = { id: "x", status: "SKIPPED" };
    expect(judge("sep-2164-resource-not-found", [success("a"), warning, skipped])).toMatchObject({
      ok: true,
      passed: 1,
      warnings: [warning],
      skipped: 1,
    });
    expect(judge("tools-list", [success("a"), failure("tools-list")]).ok).toBe(false);
  });

  it("allows an untestable FAILURE of a listed check when the server does not list the tool", () => {
    const verdict = judge("server-stateless", [success("a"), untestable(CAPABILITY)], {
      allow: true,
      listed: new Set(["get_note"]),
    });
    expect(verdict.ok).toBe(true);
    expect(verdict.allowed.map((a) => [a.check.id, a.tool])).toEqual([[CAPABILITY, "test_missing_capability"]]);
  });

  it("allows nothing against the fixture, when the tool is listed, or when the tool list is unknown", () => {
    const checks = [untestable(CAPABILITY)];
    expect(judge("server-stateless", checks, { allow: false, listed: new Set() }).ok).toBe(false);
    expect(judge("server-stateless", checks, { allow: true, listed: new Set(["test_missing_capability"]) }).ok).toBe(
      false,
    );
    expect(judge("server-stateless", checks, { allow: true, listed: undefined }).ok).toBe(false);
  });

  it("allows no other failure of those checks, and no untestable failure of any other check", () => {
    const listed = new Set();
    expect(judge("server-stateless", [failure(CAPABILITY)], { allow: true, listed }).ok).toBe(false);
    const other = untestable("sep-2575-server-sends-subscription-ack");
    expect(judge("server-stateless", [other], { allow: true, listed }).ok).toBe(false);
    expect(judge("http-custom-header-server-validation", [untestable(CAPABILITY)], { allow: true, listed }).ok).toBe(
      false,
    );
  });
});
