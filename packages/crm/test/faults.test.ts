// How the tools behave when the store is slow, hangs, drops the connection or throws (C7, C9, C10).

import { join } from "node:path";
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import { connectInMemory, createServer } from "@toolshed/server";
import { openSqlite } from "@toolshed/storage";
import { afterEach, describe, expect, it, vi } from "vitest";
import { crmPack, DEFAULT_STORE_TIMEOUT_MS, SqliteCrmStore, withFaults } from "../src/index.js";
import { type CrmFixture, captureLogger, databaseState, errorMeta, startCrm, tempDir, text } from "./helpers.js";

const SECRET = "postgres://crm:hunter2@10.0.0.7/crm password=hunter2";

let crm: CrmFixture | undefined;

afterEach(async () => {
  vi.useRealTimers();
  await crm?.close();
  crm = undefined;
});

describe("latency and timeouts", () => {
  it("latency under the timeout answers normally", async () => {
    crm = await startCrm({ timeoutMs: 500, faults: { latencyMs: 40 } });
    const started = performance.now();
    const result = await crm.call("crm_get_account", { account_id: "acc_1002" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: "acc_1002", name: "Globex" });
    expect(crm.faulty.abortedCalls).toBe(0);
  });

  it("a hanging store is a retryable timeout after the configured time, and the hang is aborted", async () => {
    crm = await startCrm({ timeoutMs: 100, faults: { hang: true } });
    const started = performance.now();
    const result = await crm.call("crm_get_account", { account_id: "acc_1001" });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(95);
    expect(elapsed).toBeLessThan(1000);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "Error executing tool crm_get_account: the CRM store did not answer within 100 ms; temporary failure, safe to retry",
    );
    expect(errorMeta(result)).toEqual({ kind: "tool", code: "timeout", retryable: true });
    expect(result.structuredContent).toBeUndefined();
    expect(crm.faulty.abortedCalls).toBe(1);
  });

  it("latency over the timeout is a timeout too; the delayed call is aborted", async () => {
    crm = await startCrm({ timeoutMs: 50, faults: { latencyMs: 2000 } });
    const result = await crm.call("crm_search_accounts", { query: "acme" });
    expect(text(result)).toBe(
      "Error executing tool crm_search_accounts: the CRM store did not answer within 50 ms; temporary failure, safe to retry",
    );
    expect(crm.faulty.abortedCalls).toBe(1);
  });

  it("the timeout applies to every store call a tool makes, including the closest-match lookup", async () => {
    crm = await startCrm({ timeoutMs: 80, faults: { hang: (call) => call.method === "findCandidates" } });
    const result = await crm.call("crm_get_account", { account_id: "acc_nope" });
    expect(errorMeta(result)).toEqual({ kind: "tool", code: "timeout", retryable: true });
    expect(crm.faulty.calls.map((c) => c.method)).toEqual(["getAccount", "findCandidates"]);
  });

  it("a hanging create writes nothing and is retryable", async () => {
    crm = await startCrm({ timeoutMs: 60, faults: { hang: true } });
    const before = databaseState(crm.dbPath);
    const result = await crm.call("crm_create_account", { name: "Slowco", tier: "startup", arr: 1 });
    expect(errorMeta(result)).toEqual({ kind: "tool", code: "timeout", retryable: true });
    expect(databaseState(crm.dbPath)).toEqual(before);
  });

  it("the default timeout is 5 s", async () => {
    expect(DEFAULT_STORE_TIMEOUT_MS).toBe(5000);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const store = withFaults(SqliteCrmStore.open(":memory:"), { hang: true });
    const { logger } = captureLogger();
    const server = createServer({ name: "t", version: "1", packs: [crmPack({ store, closeStore: true })], logger });
    const client = await connectInMemory(server);
    let settled = false;
    const pending = client.callTool({ name: "crm_get_account", arguments: { account_id: "acc_1" } }).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(4990);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    const result = await pending;
    expect((result.content as Array<{ text: string }>)[0]?.text).toBe(
      "Error executing tool crm_get_account: the CRM store did not answer within 5000 ms; temporary failure, safe to retry",
    );
    vi.useRealTimers();
    await client.close();
    await server.close();
  });

  it("when the server's own call timeout is shorter, it wins and still aborts the store call", async () => {
    const store = withFaults(SqliteCrmStore.open(":memory:"), { hang: true });
    const { logger } = captureLogger();
    const server = createServer({
      name: "t",
      version: "1",
      packs: [crmPack({ store, closeStore: true, timeoutMs: 5000 })],
      timeoutMs: 60,
      logger,
    });
    const client = await connectInMemory(server);
    const result = await client.callTool({ name: "crm_get_account", arguments: { account_id: "acc_1" } });
    expect((result.content as Array<{ text: string }>)[0]?.text).toBe(
      "Error executing tool crm_get_account: timed out after 60 ms; temporary failure, safe to retry",
    );
    await vi.waitFor(() => expect(store.abortedCalls).toBe(1));
    await client.close();
    await server.close();
  });
});

describe("classified and masked failures", () => {
  it("a dropped connection is unavailable and retryable, logged with its ref", async () => {
    crm = await startCrm({ faults: { unavailable: true } });
    const result = await crm.call("crm_get_account", { account_id: "acc_1001" });
    const meta = errorMeta(result);
    expect(meta).toEqual({
      kind: "tool",
      code: "unavailable",
      retryable: true,
      ref: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    expect(text(result)).toBe(
      `Error executing tool crm_get_account: a service this tool depends on could not be reached (ref ${meta?.ref}); temporary failure, safe to retry`,
    );
    const logged = crm.logs.find((line) => line.ref === meta?.ref && line.level === 40);
    expect(JSON.stringify(logged)).toContain("ECONNRESET");
  });

  it("a busy database is unavailable and retryable", async () => {
    crm = await startCrm({
      faults: { throwError: Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }) },
    });
    const result = await crm.call("crm_search_accounts", { query: "acme" });
    expect(errorMeta(result)).toMatchObject({ kind: "tool", code: "unavailable", retryable: true });
    expect(text(result)).toMatch(
      /^Error executing tool crm_search_accounts: the database is busy \(ref [0-9a-f]{8}\); temporary failure, safe to retry$/,
    );
  });

  it("C7: an unknown store error is masked; its secret only reaches the server log, under the same ref", async () => {
    crm = await startCrm({ faults: { throwError: new Error(`connect failed: ${SECRET}`) } });
    for (const [tool, args] of [
      ["crm_get_account", { account_id: "acc_1001" }],
      ["crm_search_accounts", { query: "acme" }],
      ["crm_create_account", { name: "Leakco", tier: "startup", arr: 1 }],
    ] as const) {
      const result = await crm.call(tool, args);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(new RegExp(`^Error executing tool ${tool} \\(ref [0-9a-f]{8}\\)$`));
      expect(JSON.stringify(result)).not.toContain("hunter2");
      const meta = errorMeta(result);
      expect(meta).toEqual({ kind: "internal", code: "internal_error", retryable: false, ref: expect.any(String) });
      const logged = crm.logs.find((line) => line.ref === meta?.ref && line.level === 50);
      expect(JSON.stringify(logged)).toContain(SECRET);
    }
  });

  it("a real locked SQLite file is a retryable unavailable error, and nothing is written", async () => {
    const tmp = tempDir();
    const path = join(tmp.dir, "locked.db");
    const store = SqliteCrmStore.open(path, { busyTimeoutMs: 0 });
    const server = createServer({
      name: "t",
      version: "1",
      packs: [crmPack({ store, closeStore: true })],
      logger: captureLogger().logger,
    });
    const client = await connectInMemory(server);
    const other = openSqlite(path);
    other.exec("BEGIN IMMEDIATE");
    try {
      const result = (await client.callTool({
        name: "crm_create_account",
        arguments: { name: "Blocked", tier: "startup", arr: 1 },
      })) as CallToolResult;
      expect(errorMeta(result)).toMatchObject({ kind: "tool", code: "unavailable", retryable: true });
      expect(text(result)).toMatch(
        /^Error executing tool crm_create_account: the database is busy \(ref [0-9a-f]{8}\); temporary failure, safe to retry$/,
      );
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    const retried = (await client.callTool({
      name: "crm_create_account",
      arguments: { name: "Blocked", tier: "startup", arr: 1 },
    })) as CallToolResult;
    expect(retried.isError).toBeFalsy();
    await client.close();
    await server.close();
    expect(databaseState(path).accounts).toBe(1);
    tmp.remove();
  });

  it("a dropped connection during a create is retryable and writes nothing", async () => {
    crm = await startCrm({ faults: { unavailable: (call) => call.method === "createAccount" } });
    const before = databaseState(crm.dbPath);
    const result = await crm.call("crm_create_account", {
      name: "Dropped",
      tier: "startup",
      arr: 1,
      idempotency_key: "d-1",
    });
    expect(errorMeta(result)).toMatchObject({ code: "unavailable", retryable: true });
    expect(databaseState(crm.dbPath)).toEqual(before);
  });

  it("C7: resources and prompts mask unknown store errors too", async () => {
    crm = await startCrm({ faults: { throwError: new Error(`resource read: ${SECRET}`) } });
    const client = crm.client;
    for (const request of [
      () => client.readResource({ uri: "crm://accounts/acc_1001" }),
      () => client.getPrompt({ name: "account_brief", arguments: { account_id: "acc_1001" } }),
    ]) {
      const error = (await request().catch((e: unknown) => e)) as McpError;
      expect(error).toBeInstanceOf(McpError);
      expect(error.code).toBe(-32603);
      expect(error.message).toMatch(/^MCP error -32603: Internal error \(ref [0-9a-f]{8}\)$/);
      expect(JSON.stringify(error)).not.toContain("hunter2");
      const ref = /ref ([0-9a-f]{8})/.exec(error.message)?.[1];
      expect(JSON.stringify(crm.logs.find((line) => line.ref === ref))).toContain(SECRET);
    }
  });

  it("faults can target one method and one id", async () => {
    crm = await startCrm({
      faults: { unavailable: (call) => call.method === "getAccount" && call.args[0] === "acc_1002" },
    });
    expect((await crm.call("crm_get_account", { account_id: "acc_1001" })).isError).toBeFalsy();
    expect(errorMeta(await crm.call("crm_get_account", { account_id: "acc_1002" }))?.code).toBe("unavailable");
    crm.faulty.faults = {};
    expect((await crm.call("crm_get_account", { account_id: "acc_1002" })).isError).toBeFalsy();
  });
});
