// Child processes for contenders: pinned to a core when taskset exists, started and stopped cleanly.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";

const hasTaskset = os.platform() === "linux" && spawnSync("taskset", ["-V"]).status === 0;
/** Server on core 0, load generator (this process) on core 1, when the machine has two. */
export const PINNING = hasTaskset && os.availableParallelism() >= 2;

/** Moves this process (all its threads) to `cpu`, so it does not compete with the server. */
export function pinSelf(cpu) {
  if (PINNING) spawnSync("taskset", ["-a", "-p", "-c", String(cpu), String(process.pid)], { stdio: "ignore" });
}

/** The command that runs `args` (a node command line) on `cpu` when pinning is possible. */
export function pinned(cpu, command, args) {
  return PINNING ? ["taskset", ["-c", String(cpu), command, ...args]] : [command, args];
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Peak and current resident set size of a process in KB (Linux /proc), or undefined elsewhere. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))?.[1]);
    return { peakKb: field("VmHWM"), rssKb: field("VmRSS") };
  } catch {
    return undefined;
  }
}

/**
 * Starts a contender script on core 0 and waits for its `READY <url>` line on stdout.
 * Rejects with its stderr when it exits or stays silent for `timeoutMs`.
 */
export function startServer(script, args, { timeoutMs = 20_000 } = {}) {
  const [command, argv] = pinned(0, process.execPath, [script, ...args]);
  const child = spawn(command, argv, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
  };
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${script} did not start in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stdout.on("data", (d) => {
      out += d;
      const url = out.match(/^READY (\S+)$/m)?.[1];
      if (url && timer) {
        clearTimeout(timer);
        resolve({ pid: child.pid, url, stop, stderr: () => stderr });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before it was ready: ${stderr}`));
    });
  });
}
