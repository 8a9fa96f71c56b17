// One, two and three toolshed-http instances on one PostgreSQL schema (and one Redis for the
// shared rate limit), loaded by autocannon with the same total connections spread over them.
// Usage: node bench/multi-instance.mjs [--duration 10] [--connections 30]
// Needs PostgreSQL (TOOLSHED_TEST_DATABASE_URL or the local `test` database) and Redis.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createTestSchema } from "@toolshed/storage/postgres";
import autocannon from "autocannon";

const { values } = parseArgs({
  options: { duration: { type: "string", default: "10" }, connections: { type: "string", default: "30" } },
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const REDIS = process.env.TOOLSHED_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const CLI = fileURLToPath(new URL("../apps/http-server/dist/cli.js", import.meta.url));
const TOKEN = "bench-token-0123456789abcdef";

async function start(db, prefix) {
  const proc = spawn(
    process.execPath,
    [
      CLI,
      ...["--port", "0", "--database-url", db.url, "--database-schema", db.schema, "--demo"],
      ...["--redis-url", REDIS, "--redis-prefix", prefix, "--rate-limit", "1000000", "--log-level", "info"],
    ],
    {
      env: { PATH: process.env.PATH, TOOLSHED_TOKENS: `${TOKEN}:tools:read tools:write` },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let buffer = "";
  const url = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      buffer += chunk.toString();
      const match = /"url":"([^"]+)"/.exec(buffer);
      if (match) {
        // Keep draining stderr (request logs) so the pipe never blocks the server.
        proc.stderr.off("data", onData);
        proc.stderr.resume();
        resolve(match[1]);
      }
    };
    proc.stderr.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`server exited ${code}: ${buffer}`)));
  });
  return { proc, url };
}

const headers = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: `Bearer ${TOKEN}`,
};
const callBody = (name, args) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });

let written = 0;
const workloads = {
  read: () => ({ method: "POST", headers, body: callBody("get_note", { title: "groceries" }) }),
  write: () => ({
    method: "POST",
    headers,
    body: callBody("create_note", { title: `bench-${process.pid}-${written++}`, body: "load test" }),
  }),
};

async function load(urls, workload) {
  const per = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url,
        connections: per,
        duration: DURATION,
        requests: [{ setupRequest: (req) => ({ ...req, ...workloads[workload]() }) }],
      }),
    ),
  );
  const total = results.reduce((n, r) => n + r.requests.total, 0);
  const errors = results.reduce((n, r) => n + r.errors + r.non2xx, 0);
  const p50 = Math.max(...results.map((r) => r.latency.p50));
  const p99 = Math.max(...results.map((r) => r.latency.p99));
  return { perSecond: Math.round(total / DURATION), p50, p99, errors };
}

const db = await createTestSchema();
const prefix = `toolshed_bench_${process.pid}`;
const servers = [];
const rows = [];
try {
  for (let n = 1; n <= 3; n++) {
    servers.push(await start(db, prefix));
    const urls = servers.map((s) => s.url);
    for (const workload of ["read", "write"]) {
      const r = await load(urls, workload);
      rows.push({ instances: n, workload, ...r });
      process.stderr.write(
        `${n} instance(s), ${workload}: ${r.perSecond}/s p50 ${r.p50} ms p99 ${r.p99} ms errors ${r.errors}\n`,
      );
    }
  }
} finally {
  for (const s of servers) {
    s.proc.kill("SIGTERM");
    await once(s.proc, "exit").catch(() => {});
  }
  await db.drop();
}
process.stdout.write("| instances | workload | calls/s | p50 ms | p99 ms | errors |\n|---|---|---|---|---|---|\n");
for (const r of rows) {
  process.stdout.write(`| ${r.instances} | ${r.workload} | ${r.perSecond} | ${r.p50} | ${r.p99} | ${r.errors} |\n`);
}
