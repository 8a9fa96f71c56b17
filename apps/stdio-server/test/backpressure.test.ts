// A client that writes many requests and does not read stdout: the server stops reading stdin
// while stdout is full, so its memory stays bounded, and every request is answered once the
// client reads again.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { CLI, cleanEnv, cleanup, INITIALIZE, INITIALIZED, tempDir } from "./helpers.js";

afterEach(cleanup);

const REQUESTS = 30_000;

/** Resident memory of a process in MB (Linux). */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it.runIf(process.platform === "linux")(
  `${REQUESTS} requests from a client that does not read: memory stays bounded, then all are answered`,
  async () => {
    const child = spawn(process.execPath, [CLI, "--db", tempDir().file("t.db"), "--demo"], {
      env: cleanEnv({ TOOLSHED_LOG_LEVEL: "warn" }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    // Not reading stdout yet: the pipe fills and stays full.
    child.stdout.pause();
    const lines = [JSON.stringify(INITIALIZE), JSON.stringify(INITIALIZED)];
    for (let id = 2; id < REQUESTS + 2; id++) {
      lines.push(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "get_note", arguments: { title: "groceries" } },
        }),
      );
    }
    child.stdin.write(`${lines.join("\n")}\n`);
    // Time for an unbounded server to read everything and build every answer.
    let peak = 0;
    for (let i = 0; i < 20; i++) {
      await sleep(150);
      peak = Math.max(peak, rssMb(child.pid as number));
    }
    process.stderr.write(`backpressure: peak RSS ${Math.round(peak)} MB while stdout was not read\n`);
    expect(peak).toBeLessThan(160);
    expect(stderr).not.toContain("MaxListenersExceededWarning");

    // Reading again: every request gets its answer, exactly once.
    const ids = new Set<number>();
    let buffered = "";
    const all = new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        let nl = buffered.indexOf("\n");
        while (nl >= 0) {
          const message = JSON.parse(buffered.slice(0, nl)) as { id?: number };
          buffered = buffered.slice(nl + 1);
          if (typeof message.id === "number") ids.add(message.id);
          nl = buffered.indexOf("\n");
        }
        if (ids.size === REQUESTS + 1) resolve();
      });
    });
    child.stdout.resume();
    await all;
    expect(ids.size).toBe(REQUESTS + 1);
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
  },
  120_000,
);
