// stdio: time from spawn to the first tools/list answer, and pipelined tools/call throughput over
// one process. Servers run on core 0; the contenders take turns in every round.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { STDIO_CONTENDERS, TOOLS } from "./contenders/index.mjs";
import { checkCall, PROTOCOL_VERSION } from "./harness/mcp.mjs";
import { pinned } from "./harness/proc.mjs";

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
};
const line = (m) => `${JSON.stringify(m)}\n`;

/** A spawned stdio server with a promise per request id; `started` is the spawn time. */
function launch(contender, db, timeoutMs) {
  const [command, argv] = pinned(0, process.execPath, contender.args(db));
  const started = process.hrtime.bigint();
  const child = spawn(command, argv, { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const waiting = new Map();
  let failure;
  const fail = (error) => {
    failure ??= error;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  createInterface({ input: child.stdout }).on("line", (text) => {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return fail(new Error(`${contender.label} wrote a line that is not JSON on stdout: ${text.slice(0, 120)}`));
    }
    const w = waiting.get(message.id);
    if (w) {
      waiting.delete(message.id);
      w.resolve(message);
    }
  });
  child.stdin.on("error", () => {}); // a server that died is reported through `exit`
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.once("exit", (code) => fail(new Error(`${contender.label} exited with ${code}: ${stderr}`)));
  const timer = setTimeout(() => fail(new Error(`${contender.label} did not answer in ${timeoutMs} ms`)), timeoutMs);
  return {
    started,
    request(message) {
      if (failure) return Promise.reject(failure);
      const answer = new Promise((resolve, reject) => waiting.set(message.id, { resolve, reject }));
      child.stdin.write(line(message));
      return answer;
    },
    notify: (message) => child.stdin.write(line(message)),
    async close() {
      clearTimeout(timer);
      child.stdin.end();
      const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(kill);
    },
  };
}

async function coldStart(contender, db) {
  const server = launch(contender, db, 20_000);
  try {
    // All three messages go out at once, as a client that does not wait would send them.
    const init = server.request(INIT);
    server.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
    const list = await server.request({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const ms = Number(process.hrtime.bigint() - server.started) / 1e6;
    await init;
    if (!list.result?.tools?.some((t) => t.name === "get_note"))
      throw new Error(`${contender.label}: no get_note in tools/list`);
    return ms;
  } finally {
    await server.close();
  }
}

/** `calls` get_note calls, `window` of them in flight at a time; every answer is checked. */
async function throughput(contender, db, calls, window) {
  const { tool, args, value } = TOOLS.find((t) => t.tool === "get_note");
  const server = launch(contender, db, 120_000);
  try {
    await server.request(INIT);
    server.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
    let next = 1;
    let wrong;
    const worker = async () => {
      while (next <= calls) {
        const id = next++;
        const answer = await server.request({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: tool, arguments: args },
        });
        wrong ??= checkCall(answer, value);
      }
    };
    const t0 = process.hrtime.bigint();
    await Promise.all(Array.from({ length: window }, worker));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (wrong) throw new Error(`${contender.label}, ${tool}: ${wrong}`);
    return calls / seconds;
  } finally {
    await server.close();
  }
}

export async function runStdioBench({ db, starts, rounds, calls, window, log }) {
  const cold = Object.fromEntries(STDIO_CONTENDERS.map((c) => [c.id, []]));
  const rate = Object.fromEntries(STDIO_CONTENDERS.map((c) => [c.id, []]));
  const failures = [];
  const attempt = async (label, fn) => {
    try {
      return await fn();
    } catch (error) {
      failures.push(`${label}: ${error.message}`);
      log(`stdio ${label}: FAILED ${error.message}`);
      return undefined;
    }
  };
  for (let i = 0; i < starts; i++) {
    for (const c of STDIO_CONTENDERS) {
      const ms = await attempt(`${c.label} cold start`, () => coldStart(c, db));
      if (ms !== undefined) cold[c.id].push(ms);
    }
  }
  log(
    `stdio cold start: ${STDIO_CONTENDERS.map((c) => `${c.id} ${cold[c.id].map((v) => v.toFixed(0)).join("/")} ms`).join("; ")}`,
  );
  for (let round = 0; round < rounds; round++) {
    for (const c of STDIO_CONTENDERS) {
      const r = await attempt(`${c.label} throughput`, () => throughput(c, db, calls, window));
      if (r !== undefined) rate[c.id].push(r);
      if (r !== undefined)
        log(`stdio round ${round + 1}/${rounds} ${c.label.padEnd(36)} get_note ${Math.round(r)} calls/s`);
    }
  }
  return { contenders: STDIO_CONTENDERS, cold, rate, failures, starts, rounds, calls, window };
}
