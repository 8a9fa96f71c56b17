// The cost of a task against a direct call (issue 40's target: creating and finishing a trivial task
// costs at most 2x a direct call, on SQLite). One toolshed-http process (bench/contenders/
// toolshed-http.mjs --tasks on, SQLite file) on core 0; this process loads it from core 1 with
// `connections` closed loops over keep-alive sockets, each for `seconds`, three ways:
//   2025 direct    tools/call add, 2025-06-18 (stateless)
//   2026 direct    tools/call add with the 2026-07-28 envelope, no tasks extension: answered in the call
//   2026 task      the same call declaring the extension: a CreateTaskResult, then tasks/get until
//                  the task is completed with the sum (one "op" = every request of one task)
//
//   node tasks.mjs [--seconds 5] [--connections 10] [--rounds 3] [--out FILE]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort, PINNING, pinSelf, startServer } from "./harness/proc.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    out: { type: "string" },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);

const MODERN = "2026-07-28";
const EXTENSION = "io.modelcontextprotocol/tasks";
const agent = new Agent({ keepAlive: true, maxSockets: connections });

function post(url, body, headers) {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(text),
          ...headers,
        },
      },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (c) => {
          data += c;
        });
        res.on("end", () => resolve(JSON.parse(data)));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

const envelope = (tasks) => ({
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [EXTENSION]: {} } } : {},
});
const modernHeaders = (method, name) => ({ "mcp-protocol-version": MODERN, "mcp-method": method, "mcp-name": name });

let id = 0;
const MODES = {
  "2025 direct": async (url) => {
    const answer = await post(
      url,
      { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } },
      { "mcp-protocol-version": "2025-06-18" },
    );
    if (answer.result?.structuredContent?.sum !== 5) throw new Error(`bad answer ${JSON.stringify(answer)}`);
    return 1;
  },
  "2026 direct": async (url) => {
    const params = { name: "add", arguments: { a: 2, b: 3 }, _meta: envelope(false) };
    const answer = await post(
      url,
      { jsonrpc: "2.0", id: ++id, method: "tools/call", params },
      modernHeaders("tools/call", "add"),
    );
    if (answer.result?.structuredContent?.sum !== 5) throw new Error(`bad answer ${JSON.stringify(answer)}`);
    return 1;
  },
  "2026 task": async (url) => {
    const params = { name: "add", arguments: { a: 2, b: 3 }, _meta: envelope(true) };
    const created = await post(
      url,
      { jsonrpc: "2.0", id: ++id, method: "tools/call", params },
      modernHeaders("tools/call", "add"),
    );
    const taskId = created.result?.taskId;
    if (typeof taskId !== "string") throw new Error(`no task: ${JSON.stringify(created)}`);
    for (let requests = 2; ; requests++) {
      const got = await post(
        url,
        { jsonrpc: "2.0", id: ++id, method: "tasks/get", params: { taskId, _meta: envelope(true) } },
        modernHeaders("tasks/get", taskId),
      );
      if (got.result?.status === "completed") {
        if (got.result.result?.structuredContent?.sum !== 5) throw new Error(`bad result ${JSON.stringify(got)}`);
        return requests;
      }
      if (got.result?.status !== "working") throw new Error(`task ended ${JSON.stringify(got)}`);
    }
  },
};

async function load(url, op, ms) {
  const end = performance.now() + ms;
  let ops = 0;
  let requests = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const sent = await op(url);
        requests += sent;
        ops++;
      }
    }),
  );
  return { opsPerSec: (ops * 1000) / ms, requestsPerOp: requests / ops };
}

pinSelf(1);
const dir = mkdtempSync(join(tmpdir(), "toolshed-bench-tasks-"));
const port = await freePort();
const script = fileURLToPath(new URL("./contenders/toolshed-http.mjs", import.meta.url));
const server = await startServer(script, [
  "--port",
  String(port),
  "--db",
  join(dir, "bench.db"),
  "--mode",
  "stateless",
  "--tasks",
  "on",
]);
const results = Object.fromEntries(Object.keys(MODES).map((m) => [m, []]));
try {
  for (const op of Object.values(MODES)) await load(server.url, op, 1000);
  for (let r = 0; r < rounds; r++) {
    // Alternating modes each round, so that a slow minute hurts them alike.
    for (const [name, op] of Object.entries(MODES)) results[name].push(await load(server.url, op, seconds * 1000));
  }
} finally {
  await server.stop();
  agent.destroy();
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = Object.entries(results).map(([name, runs]) => {
  const ops = median(runs.map((r) => r.opsPerSec));
  return {
    name,
    ops,
    usPerOp: (1e6 * connections) / ops,
    requestsPerOp: median(runs.map((r) => r.requestsPerOp)),
    runs,
  };
});
const direct = rows.find((r) => r.name === "2026 direct");
const legacy = rows.find((r) => r.name === "2025 direct");
const task = rows.find((r) => r.name === "2026 task");
const lines = [
  `Node ${process.version}, ${connections} connections, ${rounds} rounds of ${seconds} s after 1 s warm-up each, server ${PINNING ? "on core 0, load on core 1" : "unpinned (no taskset)"}, SQLite file (WAL, synchronous=NORMAL).`,
  "",
  "| way | ops/s (median) | rounds | requests per op | time per op at this load |",
  "|---|---:|---|---:|---:|",
  ...rows.map(
    (r) =>
      `| ${r.name} | ${Math.round(r.ops).toLocaleString("en-US")} | ${r.runs.map((x) => Math.round(x.opsPerSec).toLocaleString("en-US")).join(" / ")} | ${r.requestsPerOp.toFixed(2)} | ${Math.round(r.usPerOp)} µs |`,
  ),
  "",
  `A task costs ${(direct.ops / task.ops).toFixed(2)}x a 2026-07-28 direct call and ${(legacy.ops / task.ops).toFixed(2)}x a 2025 one (target: at most 2x).`,
];
const text = `${lines.join("\n")}\n`;
if (values.out) writeFileSync(values.out, text);
process.stdout.write(text);
