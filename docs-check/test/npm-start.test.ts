import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { INSPECTOR, inspectorNodeOk } from "../../scripts/inspector.mjs";
import { ROOT } from "./markdown.js";

// `npm start` is `node scripts/run.mjs start`: install, build, then `serve`. These tests run `serve`
// (the built apps/http-server) as real processes and watch what a user at the terminal would see.
const RUN = join(ROOT, "scripts", "run.mjs");
const tmp = mkdtempSync(join(tmpdir(), "toolshed-npm-start-"));
const started: number[] = [];

afterEach(() => {
  // A failing test must not leave a server behind.
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface StartRun {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

// The environment without the settings `pnpm exec` hands to this test (npm would warn about them).
const userEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm|pnpm)_/i.test(key)));

/** `node scripts/run.mjs serve`, or with `viaNpm` `npm run serve --` as a user types it (npm, sh, node). */
function npmStart(port: number, viaNpm = false): StartRun {
  const db = join(tmp, `demo-${port}.db`);
  const flags = ["--port", String(port), "--db", db, "--log-level", "warn"];
  const [command, args] = viaNpm
    ? ["npm", ["run", "--silent", "serve", "--", ...flags]]
    : [process.execPath, [RUN, "serve", ...flags]];
  const child = spawn(command as string, args as string[], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: userEnv,
  });
  if (child.pid) started.push(child.pid);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { process: child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The pids whose parent is `pid` (Linux and macOS `ps`). */
function childrenOf(pid: number): number[] {
  const out = spawnSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" }).stdout;
  return out
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, ppid]) => ppid === pid)
    .map(([child]) => child as number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether anything accepts connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Every process below `pid`, nearest first. */
function descendantsOf(pid: number): number[] {
  const children = childrenOf(pid);
  return [...children, ...children.flatMap(descendantsOf)];
}

/** Starts `serve` on any free port and waits for its "serving" message: the port, the server's pid. */
async function serving(viaNpm = false) {
  const run = npmStart(0, viaNpm);
  let exited = false;
  void run.exited.then(() => {
    exited = true;
  });
  const said = await until("the serving message", () => {
    if (exited) throw new Error(`npm start exited before serving:\n${run.stdout()}\n${run.stderr()}`);
    return /at http:\/\/127\.0\.0\.1:(\d+)\/mcp \(pid (\d+)\)/.exec(run.stdout()) ?? undefined;
  });
  const below = descendantsOf(run.process.pid as number);
  started.push(...below);
  return { run, port: Number(said[1]), pid: Number(said[2]), below };
}

describe("npm start", () => {
  it("does not say it is serving when another process holds the port, and exits with the server's code", async () => {
    // Another program on the port that answers every request, /readyz included, with 200.
    const other: Server = createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as { port: number }).port;
    try {
      const run = npmStart(port);
      const { code } = await run.exited;
      expect(run.stdout()).not.toContain("serving");
      expect(run.stderr()).toContain(`port ${port} on 127.0.0.1 is in use`);
      // `serve` is what `npm run serve` runs: its messages say so, not "npm start" (issue 37).
      expect(run.stderr()).toContain("npm run serve: toolshed-http could not start");
      expect(run.stderr()).toContain("npm run serve -- --port");
      expect(run.stderr()).not.toContain("npm start");
      expect(code).toBe(2);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("names the URL and the pid of the server it started, and the Node the Inspector needs", async () => {
    const { run, port, pid, below } = await serving();
    expect(run.stdout()).toContain(`npx -y ${INSPECTOR.spec} --cli http://127.0.0.1:${port}/mcp`);
    expect(run.stdout().includes(`The Inspector needs Node ${INSPECTOR.node}+`)).toBe(!inspectorNodeOk());
    // The pid is the server process npm start runs, and the port is the one it listens on.
    expect(below).toEqual([pid]);
    expect(await listening(port)).toBe(true);
    run.process.kill("SIGTERM");
    await run.exited;
  });

  it.each(["SIGINT", "SIGTERM", "SIGHUP"] as const)(
    "%s to npm start stops the server, then npm start exits with its code",
    async (signal) => {
      const { run, port, pid: server } = await serving();
      expect(await listening(port)).toBe(true);
      run.process.kill(signal);
      const { code } = await run.exited;
      expect(code).toBe(0);
      expect(alive(server)).toBe(false);
      expect(await listening(port)).toBe(false);
    },
  );

  it("killed outright (SIGKILL), npm start leaves no server behind", async () => {
    const { run, port, pid: server } = await serving();
    run.process.kill("SIGKILL");
    await run.exited;
    await until("the server to stop", () => !alive(server) || undefined, 30_000);
    expect(await listening(port)).toBe(false);
  });

  it("SIGTERM to the npm process of `npm run serve` (npm start without the build) leaves no server behind", async () => {
    const { run, port, pid: server, below } = await serving(true);
    expect(below.at(-1)).toBe(server);
    run.process.kill("SIGTERM");
    await run.exited;
    await until("every process npm started to stop", () => below.every((pid) => !alive(pid)) || undefined, 30_000);
    expect(await listening(port)).toBe(false);
  });

  it("says so when the server dies, and exits with a code that says how", async () => {
    const { run, pid: server } = await serving();
    process.kill(server, "SIGKILL");
    const { code } = await run.exited;
    expect(run.stderr()).toContain("toolshed-http was killed by SIGKILL");
    expect(code).toBe(137);
  });
});

describe("README quick start", () => {
  it("names the Node that Toolshed needs (package.json engines) and the one the Inspector needs", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const quickStart = readme.split("## Quick start")[1]?.split("\n## ")[0] ?? "";
    const engines = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).engines.node as string;
    // The supported lines, oldest first: "^20.19.0 || ^22.12.0 || …".
    const floor = /^\^(\d+\.\d+)\.0 \|\| /.exec(engines)?.[1];
    expect(floor).toBeDefined();
    expect(quickStart).toContain(`Node ${floor}+`);
    expect(quickStart).toContain(INSPECTOR.spec.split("@").slice(0, -1).join("@"));
    expect(quickStart).toContain(INSPECTOR.spec.split("@").at(-1));
    expect(quickStart).toContain(`Node ${INSPECTOR.node}+`);
  });
});
