// The cost of a task against a direct call (issue 40's target: creating and finishing a trivial task
// costs at most 2x a direct call, on SQLite). One toolshed-http process (bench/contenders/
// toolshed-http.mjs --tasks on, SQLite file) on core 0; this process loads it from core 1 with
// `connections` closed loops over keep-alive sockets, each for `seconds`, four ways:
//   2025 direct         tools/call add, 2025-06-18 (stateless)
//   2026 direct         tools/call add with the 2026-07-28 envelope, no tasks extension: answered in the call
//   2026 task made      the same call declaring the extension: the CreateTaskResult. add ends before
//                       the task's write, so the task is written completed with its result; after each
//                       round a sample of these tasks is read back (not timed) and must be completed
//   2026 task + get     the CreateTaskResult, then tasks/get until the task is completed with the
//                       sum (one "op" = every request of one task)
//   2026 get, ended     tasks/get of one task that has completed (what reading a result costs)
// and, besides the rates, the server's CPU time per op (from /proc, when there is one).
//
// The ratios are taken round by round (each way's round against the direct call's round beside it)
// and the median of those reported: on a shared machine the rate of a whole minute moves by half,
// and a ratio of medians mixes slow rounds with fast ones.
//
//   node tasks.mjs [--seconds 2] [--connections 10] [--rounds 8] [--out FILE]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort, PINNING, pinSelf, startServer } from "./harness/proc.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "2" },
    connections: { type: "string", default: "10" },
    rounds: { type: "string", default: "8" },
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
/** Tasks made by "2026 task made" in the current round, read back after it. */
let madeIds = [];
/** A completed task, for "2026 get, ended". */
let endedTask;

async function makeTask(url) {
  const params = { name: "add", arguments: { a: 2, b: 3 }, _meta: envelope(true) };
  const created = await post(
    url,
    { jsonrpc: "2.0", id: ++id, method: "tools/call", params },
    modernHeaders("tools/call", "add"),
  );
  const taskId = created.result?.taskId;
  if (typeof taskId !== "string") throw new Error(`no task: ${JSON.stringify(created)}`);
  return taskId;
}

function getTask(url, taskId) {
  return post(
    url,
    { jsonrpc: "2.0", id: ++id, method: "tasks/get", params: { taskId, _meta: envelope(true) } },
    modernHeaders("tasks/get", taskId),
  );
}

/** Every 50th task a round made (at most 200) must read completed with the sum. */
async function checkMade(url) {
  const sample = madeIds.filter((_, i) => i % 50 === 0).slice(0, 200);
  for (const taskId of sample) {
    const got = await getTask(url, taskId);
    if (got.result?.status !== "completed" || got.result.result?.structuredContent?.sum !== 5) {
      throw new Error(`a task made is not completed: ${JSON.stringify(got)}`);
    }
  }
  madeIds = [];
}

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
  "2026 task made": async (url) => {
    madeIds.push(await makeTask(url));
    return 1;
  },
  "2026 task + get": async (url) => {
    const taskId = await makeTask(url);
    for (let requests = 2; ; requests++) {
      const got = await getTask(url, taskId);
      if (got.result?.status === "completed") {
        if (got.result.result?.structuredContent?.sum !== 5) throw new Error(`bad result ${JSON.stringify(got)}`);
        return requests;
      }
      if (got.result?.status !== "working") throw new Error(`task ended ${JSON.stringify(got)}`);
    }
  },
  "2026 get, ended": async (url) => {
    const got = await getTask(url, endedTask);
    if (got.result?.result?.structuredContent?.sum !== 5) throw new Error(`bad result ${JSON.stringify(got)}`);
    return 1;
  },
};

/** The server's CPU time so far in µs (user + system), or undefined without /proc. */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return undefined;
  }
}

async function load(url, op, ms) {
  const cpuBefore = cpuOf(server.pid);
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
  const cpuAfter = cpuOf(server.pid);
  const cpuPerOp = cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / ops;
  if (op === MODES["2026 task made"]) await checkMade(url);
  return { opsPerSec: (ops * 1000) / ms, requestsPerOp: requests / ops, cpuPerOp };
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
  endedTask = await makeTask(server.url);
  while ((await getTask(server.url, endedTask)).result?.status !== "completed") {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
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
    cpu: runs.every((r) => r.cpuPerOp !== undefined) ? median(runs.map((r) => r.cpuPerOp)) : undefined,
    runs,
  };
});
const direct = rows.find((r) => r.name === "2026 direct");
const legacy = rows.find((r) => r.name === "2025 direct");
const made = rows.find((r) => r.name === "2026 task made");
const task = rows.find((r) => r.name === "2026 task + get");
const cpuText = (r) => (r.cpu === undefined ? "n/a" : `${Math.round(r.cpu)} µs`);
/** The median over rounds of how many times `base`'s rate is `way`'s, and `way`'s CPU per op is `base`'s. */
const ratios = (base, way) => {
  const rate = median(base.runs.map((b, i) => b.opsPerSec / way.runs[i].opsPerSec)).toFixed(2);
  const cpu =
    base.cpu === undefined
      ? "n/a"
      : `${median(base.runs.map((b, i) => way.runs[i].cpuPerOp / b.cpuPerOp)).toFixed(2)}x`;
  return { rate: `${rate}x`, cpu };
};
const against = (way) => {
  const [d, l] = [ratios(direct, way), ratios(legacy, way)];
  return `${d.rate} a 2026-07-28 direct call and ${l.rate} a 2025 one by rate (server CPU: ${d.cpu} and ${l.cpu})`;
};
const lines = [
  `Node ${process.version}, ${connections} connections, ${rounds} rounds of ${seconds} s after 1 s warm-up each, server ${PINNING ? "on core 0, load on core 1" : "unpinned (no taskset)"}, SQLite file (WAL, synchronous=NORMAL).`,
  "",
  "| way | ops/s (median) | rounds | requests per op | time per op at this load | server CPU per op (median) |",
  "|---|---:|---|---:|---:|---:|",
  ...rows.map(
    (r) =>
      `| ${r.name} | ${Math.round(r.ops).toLocaleString("en-US")} | ${r.runs.map((x) => Math.round(x.opsPerSec).toLocaleString("en-US")).join(" / ")} | ${r.requestsPerOp.toFixed(2)} | ${Math.round(r.usPerOp)} µs | ${cpuText(r)} |`,
  ),
  "",
  `Medians of the rounds' ratios. A task made and finished (its tools/call) costs ${against(made)}; target: at most 2x.`,
  `With the tasks/get that reads its result: ${against(task)}.`,
];
const text = `${lines.join("\n")}\n`;
if (values.out) writeFileSync(values.out, text);
process.stdout.write(text);
