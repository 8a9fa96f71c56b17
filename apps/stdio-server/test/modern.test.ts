import { afterEach, describe, expect, it } from "vitest";
import { cleanup, INITIALIZE, INITIALIZED, spawnCli, tempDir } from "./helpers.js";

afterEach(cleanup);

const V = "2026-07-28";
const meta = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
const modern = (id: number | string, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { _meta: meta, ...params },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("stdio in both eras", () => {
  it("answers server/discover before any initialize, then both eras side by side", async () => {
    const cli = spawnCli(["--db", tempDir().file("t.db"), "--demo"]);
    cli.send(modern("probe", "server/discover"));
    await cli.waitForLines(1);
    expect(cli.messages()[0]).toMatchObject({
      id: "probe",
      result: {
        supportedVersions: [V],
        resultType: "complete",
        cacheScope: "public",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "toolshed" } },
      },
    });
    cli.send(modern(2, "tools/call", { name: "get_note", arguments: { title: "groceries" } }));
    cli.send(INITIALIZE);
    cli.send(INITIALIZED);
    cli.send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "get_note", arguments: { title: "groceries" } },
    });
    cli.send(modern(4, "resources/read", { uri: "note://nope-not-here" }));
    cli.send({ jsonrpc: "2.0", id: 5, method: "resources/read", params: { uri: "note://nope-not-here" } });
    await cli.waitForLines(6);
    const byId = new Map(cli.messages().map((m) => [m.id, m]));
    expect(byId.get(2)).toMatchObject({
      result: { resultType: "complete", structuredContent: { title: "groceries" } },
    });
    // The 2025 answer has no 2026 fields.
    expect(byId.get(3)).toMatchObject({ result: { structuredContent: { title: "groceries" } } });
    expect((byId.get(3) as { result: Record<string, unknown> }).result.resultType).toBeUndefined();
    expect(byId.get(4)).toMatchObject({ error: { code: -32602, data: { uri: "note://nope-not-here" } } });
    expect(byId.get(5)).toMatchObject({ error: { code: -32002 } });
  });

  it("an unsupported version is -32022 with the supported list; ping and initialize are not 2026 methods", async () => {
    const cli = spawnCli(["--db", tempDir().file("t.db")]);
    cli.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
    });
    cli.send(modern(2, "ping"));
    cli.send(
      modern(3, "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "x", version: "1" },
      }),
    );
    await cli.waitForLines(3);
    // Answers to requests sent together may come in any order (JSON-RPC matches them by id).
    const byId = new Map(cli.messages().map((m) => [m.id, m]));
    const [unsupported, ping, initialize] = [byId.get(1), byId.get(2), byId.get(3)];
    expect(unsupported).toMatchObject({
      id: 1,
      error: { code: -32022, data: { supported: [V], requested: "2099-01-01" } },
    });
    expect(ping).toMatchObject({ id: 2, error: { code: -32601 } });
    expect(initialize).toMatchObject({ id: 3, error: { code: -32601 } });
  });

  it("subscriptions/listen: the ack, updates tagged with the listen id, and nothing after notifications/cancelled", async () => {
    const cli = spawnCli(["--db", tempDir().file("t.db"), "--demo"]);
    cli.send(modern("L1", "subscriptions/listen", { notifications: { resourceSubscriptions: ["note://fresh"] } }));
    await cli.waitForLines(1);
    const tag = { "io.modelcontextprotocol/subscriptionId": "L1" };
    expect(cli.messages()[0]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: tag, notifications: { resourceSubscriptions: ["note://fresh"] } },
    });
    cli.send(modern(2, "tools/call", { name: "create_note", arguments: { title: "fresh", body: "new" } }));
    await cli.waitForLines(3);
    const [, update, created] = cli.messages();
    expect(update).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { _meta: tag, uri: "note://fresh" },
    });
    expect(created).toMatchObject({ id: 2, result: { resultType: "complete" } });
    cli.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "L1" } });
    await sleep(50);
    cli.send(modern(3, "tools/call", { name: "update_note", arguments: { title: "fresh", body: "newer" } }));
    await cli.waitForLines(4);
    await sleep(100);
    const after = cli.messages().slice(3);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: 3, result: { resultType: "complete" } });
  });

  it("notifications/tasks: a task made over stdio is told on a listen stream, the result inlined", async () => {
    const cli = spawnCli(["--db", tempDir().file("t.db"), "--demo"]);
    const tasks = { extensions: { "io.modelcontextprotocol/tasks": {} } };
    const declared = { ...meta, "io.modelcontextprotocol/clientCapabilities": tasks };
    cli.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        _meta: declared,
        name: "crm_bulk_update_tier",
        arguments: { account_ids: ["acc_1001", "acc_nope"], new_tier: "growth" },
      },
    });
    await cli.waitForLines(1);
    const created = cli.messages()[0] as { result: { resultType: string; taskId: string } };
    expect(created.result.resultType).toBe("task");
    const { taskId } = created.result;
    cli.send({
      jsonrpc: "2.0",
      id: "L2",
      method: "subscriptions/listen",
      params: { _meta: declared, notifications: { taskIds: [taskId] } },
    });
    await cli.waitForLines(3);
    const tag = { "io.modelcontextprotocol/subscriptionId": "L2" };
    const [, ack, told] = cli.messages();
    expect(ack).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: tag, notifications: { taskIds: [taskId] } },
    });
    // A bulk update of two accounts ends at once: the stream tells its end, with the partial-success envelope.
    expect(told).toMatchObject({
      method: "notifications/tasks",
      params: {
        _meta: tag,
        taskId,
        status: "completed",
        result: { structuredContent: { succeeded_count: 1, failed_count: 1 } },
      },
    });
  });
});
