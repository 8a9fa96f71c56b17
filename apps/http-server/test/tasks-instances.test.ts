// Tasks across instances: three toolshed-http processes (test/fixtures/tasks-server.mjs) on one
// PostgreSQL schema, as behind a load balancer. A task made on one is read, answered and cancelled
// on the others; one whose instance is SIGKILLed reads as failed, retryable, once its lease runs out.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_DIR, type HttpProcess, killChildren, removeTempDirs, startServer, tempDir } from "./helpers.js";
import { ended, expectAck, listen, rpc as rawRpc, until as rawUntil } from "./tasks-client.js";

const pg = await pgReachable();
if (!pg) process.stderr.write(`tasks-instances test SKIPPED: PostgreSQL (${TEST_DATABASE_URL}) is not reachable\n`);

const SCRIPT = join(APP_DIR, "test", "fixtures", "tasks-server.mjs");
const ALICE = "alice-token-0123456789abcdef0123456789";
const BOB = "bob-token-0123456789abcdef0123456789ab";
const LEASE_MS = 1_500;
const WORKER_LOST = "the server running the task stopped before it ended; call the tool again";

const rpc = (url: string, method: string, params: Record<string, unknown>, token = ALICE) =>
  rawRpc(url, method, params, { token });
const until = (url: string, taskId: string, done: (task: Record<string, unknown>) => boolean) =>
  rawUntil(url, taskId, done, ALICE);

describe.skipIf(!pg)("tasks on three instances sharing PostgreSQL", () => {
  let db: TestSchema;
  let a: HttpProcess;
  let b: HttpProcess;
  let c: HttpProcess;
  let args: string[];

  beforeAll(async () => {
    db = await createTestSchema();
    const tokensFile = tempDir().file("tokens.json");
    writeFileSync(
      tokensFile,
      JSON.stringify([
        { id: "alice", token: ALICE, scopes: ["tools:read", "tools:write"] },
        { id: "bob", token: BOB, scopes: ["tools:read", "tools:write"] },
      ]),
    );
    args = [...["--database-url", db.url, "--database-schema", db.schema], ...["--tokens-file", tokensFile]];
    const env = { TOOLSHED_TEST_TASK_LEASE_MS: String(LEASE_MS) };
    // Started together: the tasks table is made once, whoever gets there first.
    const start = () => startServer(args, { script: SCRIPT, env });
    [a, b, c] = await Promise.all([start(), start(), start()]);
  }, 60_000);

  afterAll(async () => {
    await killChildren();
    await db?.drop();
    removeTempDirs();
  });

  it("a task made on one instance is read on another and cancelled from a third; another token sees no task", async () => {
    const created = await rpc(a.url, "tools/call", { name: "job_wait", arguments: { label: "wait" } });
    expect(created.result).toMatchObject({ resultType: "task", status: "working" });
    const taskId = String(created.result?.taskId);
    const working = await until(b.url, taskId, (t) => t.progress !== undefined);
    expect(working).toMatchObject({ status: "working", progress: { progress: 1, message: `wait on pid ${a.pid}` } });
    expect((await rpc(c.url, "tasks/get", { taskId }, BOB)).error?.code).toBe(-32602);
    expectAck(await rpc(c.url, "tasks/cancel", { taskId }));
    // Instance a hears of the cancel at its next heartbeat (a third of the lease) and stops the handler.
    expect((await until(b.url, taskId, ended)).status).toBe("cancelled");
  });

  it("a stream on one instance hears of a task that runs on another, cancelled from a third", async () => {
    const created = await rpc(a.url, "tools/call", { name: "job_wait", arguments: { label: "heard" } });
    const taskId = String(created.result?.taskId);
    const stream = await listen(c.url, { taskIds: [taskId] }, { token: ALICE });
    try {
      expect(await stream.next()).toMatchObject({ params: { notifications: { taskIds: [taskId] } } });
      expect(await stream.next()).toMatchObject({
        method: "notifications/tasks",
        params: { taskId, status: "working" },
      });
      expectAck(await rpc(b.url, "tasks/cancel", { taskId }));
      expect(await stream.next()).toMatchObject({
        method: "notifications/tasks",
        params: { taskId, status: "cancelled" },
      });
    } finally {
      stream.close();
    }
  });

  it("a question asked on one instance is answered on another and the task ends where it runs", async () => {
    const created = await rpc(b.url, "tools/call", { name: "job_confirm", arguments: {} });
    const taskId = String(created.result?.taskId);
    const waiting = await until(c.url, taskId, (t) => t.status === "input_required");
    expect(waiting.inputRequests).toMatchObject({ go: { method: "elicitation/create" } });
    expectAck(
      await rpc(a.url, "tasks/update", { taskId, inputResponses: { go: { action: "accept", content: { ok: true } } } }),
    );
    const done = await until(c.url, taskId, ended);
    expect(done).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: `confirmed=true on pid ${b.pid}` }] },
    });
  });

  it("SIGKILL of the instance running a task: the others read it failed, retryable, once its lease has run out", async () => {
    const created = await rpc(c.url, "tools/call", { name: "job_wait", arguments: { label: "doomed" } });
    const taskId = String(created.result?.taskId);
    await until(a.url, taskId, (t) => t.progress !== undefined);
    c.proc.kill("SIGKILL");
    await c.exited;
    const killedAt = Date.now();
    const failed = await until(a.url, taskId, ended);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 3_000);
    expect(failed).toMatchObject({
      status: "failed",
      statusMessage: WORKER_LOST,
      error: {
        code: -32603,
        message: WORKER_LOST,
        data: { "toolshed.dev/error": { code: "unavailable", retryable: true } },
      },
    });
    // Ended tasks count no more against the caller, and a new instance on the same schema reads them.
    const d = await startServer(args, { script: SCRIPT, env: { TOOLSHED_TEST_TASK_LEASE_MS: String(LEASE_MS) } });
    expect((await rpc(d.url, "tasks/get", { taskId })).result?.status).toBe("failed");
  });
});
