import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { connect, killChildren, post, rawRequest, removeTempDirs, runCli, startServer, tempDir } from "./helpers.js";

afterEach(async () => {
  await killChildren();
  removeTempDirs();
});

/** Exit 2, nothing on stdout, exactly one line on stderr. */
async function expectUsageError(args: string[], line: string | RegExp, env: Record<string, string> = {}) {
  const { code, stdout, stderr } = await runCli(args, env);
  expect(code).toBe(2);
  expect(stdout).toBe("");
  expect(stderr.endsWith("\n")).toBe(true);
  expect(stderr.trimEnd().split("\n")).toHaveLength(1);
  if (typeof line === "string") expect(stderr.trimEnd()).toBe(line);
  else expect(stderr.trimEnd()).toMatch(line);
}

describe("flags", () => {
  it("--version and --help print to stdout and exit 0", async () => {
    const version = await runCli(["--version"]);
    expect(version).toEqual({ code: 0, stdout: "0.1.0\n", stderr: "" });
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: toolshed-http");
    for (const flag of ["--tokens-file", "--jwks-url", "--allowed-hosts", "--max-body", "--rate-limit", "--sessions"]) {
      expect(help.stdout).toContain(flag);
    }
  });

  it("bad flags are one stderr line with the fix, exit 2", async () => {
    await expectUsageError(["--nope"], /^toolshed-http: unknown option --nope; the flags are --host, --port, /);
    await expectUsageError(["--sesions"], "toolshed-http: unknown option --sesions; did you mean --sessions?");
    await expectUsageError(["--port", "abc"], 'toolshed-http: --port "abc" must be a whole number from 0 to 65535');
    await expectUsageError(["--port"], "toolshed-http: --port needs a value, as in --port PORT");
    await expectUsageError(["--packs", "wiki"], 'toolshed-http: unknown pack "wiki"; choose from notes, tickets, crm');
    await expectUsageError(
      ["--log-level", "loud"],
      'toolshed-http: bad log level "loud"; choose from fatal, error, warn, info, debug, trace, silent',
    );
    await expectUsageError(
      ["--max-body", "lots"],
      'toolshed-http: --max-body "lots" is not a size; write bytes (1048576) or 512k, 1m',
    );
    await expectUsageError(
      ["--jwks-url", "https://auth.example/jwks.json"],
      "toolshed-http: --jwks-url needs --jwt-issuer (the iss of accepted tokens) and --jwt-audience (their aud, this server's id or URL)",
    );
    await expectUsageError([], /^toolshed-http: TOOLSHED_DEMO="maybe" is not a switch/, { TOOLSHED_DEMO: "maybe" });
  });

  it("refuses a non-loopback address without tokens or JWKS (exit 2)", async () => {
    await expectUsageError(
      ["--host", "0.0.0.0"],
      "toolshed-http: refusing to serve 0.0.0.0 without authentication; add --tokens-file PATH (or TOOLSHED_TOKENS), --jwks-url URL or --introspection-url URL, or bind to 127.0.0.1",
    );
  });

  it("a missing or bad tokens file is exit 2 with the reason", async () => {
    const missing = tempDir().file("missing.txt");
    await expectUsageError(
      ["--tokens-file", missing, "--port", "0", "--db", ":memory:"],
      `toolshed-http: cannot read the tokens file ${missing} (ENOENT); check --tokens-file`,
    );
    const short = tempDir().file("tokens.txt");
    writeFileSync(short, "abc tools:read\n");
    await expectUsageError(
      ["--tokens-file", short, "--port", "0", "--db", ":memory:"],
      `toolshed-http: ${short} line 1: a token needs at least 16 characters; make one with: openssl rand -hex 32`,
    );
    await expectUsageError(
      ["--port", "0", "--db", ":memory:"],
      'toolshed-http: token env#1 has the scope "admin", which this server does not support; the supported scopes are tools:read, tools:write',
      { TOOLSHED_TOKENS: "abcdefghijklmnopqrstuvwxyz:admin" },
    );
  });

  it("a port in use and an unwritable database are exit 2 with a hint", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expectUsageError(
        ["--port", String(port), "--db", ":memory:"],
        `toolshed-http: port ${port} on 127.0.0.1 is in use; pass --port with a free port, or 0 for any`,
      );
    } finally {
      blocker.close();
    }
    await expectUsageError(
      ["--port", "0", "--db", "/proc/nope/toolshed.db"],
      /^toolshed-http: cannot create the folder for database \/proc\/nope\/toolshed\.db \([A-Z]+\); choose a writable path$/,
    );
  });
});

// node:sqlite is the default from Node 22.16; before it, better-sqlite3.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const NODE_SQLITE = major > 22 || (major === 22 && minor >= 16);

describe("--sqlite-driver", () => {
  it("a driver this Node cannot load is exit 2 with what would work", async () => {
    // On later Nodes the better-sqlite3 addon here is built for Node 20.
    const driver = NODE_SQLITE ? "better-sqlite3" : "node";
    const result = await runCli(["--port", "0", "--db", tempDir().file("t.db"), "--sqlite-driver", driver]);
    if (driver === "better-sqlite3" && result.code !== 2) return; // built for this Node: nothing to refuse
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^toolshed-http: --sqlite-driver ${driver} cannot be used: [^\\n]*; (run on Node 22\\.16 or later|start with --sqlite-driver auto)[^\\n]*\\n$`,
      ),
    );
  });

  it("the listening log line names the driver in use", async () => {
    const server = await startServer([]);
    expect(server.logs().find((l) => String(l.msg).startsWith("listening on"))).toMatchObject({
      database: "sqlite",
      sqliteDriver: NODE_SQLITE ? "node" : "better-sqlite3",
    });
  });
});

describe("serving", () => {
  it("health and readiness, JSON logs on stderr and nothing on stdout; SIGTERM exits 0", async () => {
    const server = await startServer(["--demo"]);
    const health = await fetch(`${server.base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${server.base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
    const { client } = await connect(server.url);
    await client.listTools();
    await client.close();
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toBe("");
    const lines = server.stderr().trimEnd().split("\n");
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(server.logs().map((l) => l.msg)).toEqual(expect.arrayContaining(["shutting down", "stopped"]));
  });

  it("SIGINT exits 0 too", async () => {
    const server = await startServer([]);
    server.proc.kill("SIGINT");
    expect(await server.exited).toBe(0);
  });

  it("TOOLSHED_* variables work like flags (TOOLSHED_PACKS, TOOLSHED_READ_ONLY)", async () => {
    const server = await startServer(["--demo"], { env: { TOOLSHED_PACKS: "crm", TOOLSHED_READ_ONLY: "1" } });
    const { client } = await connect(server.url);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(["crm_get_account", "crm_search_accounts"]);
    await client.close();
  });

  it("--read-only lists only read-only tools", async () => {
    // --read-only opens an existing database; --demo creates this one first.
    const server = await startServer(["--read-only", "--demo", "--packs", "notes"]);
    const { client } = await connect(server.url);
    const tools = (await client.listTools()).tools;
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
    await client.close();
  });

  it("on a non-loopback address with tokens, any Host is served but browser Origins are refused", async () => {
    const token = "wide-token-0123456789abcdef";
    const server = await startServer(["--host", "0.0.0.0"], { env: { TOOLSHED_TOKENS: `${token}:tools:read` } });
    const url = `http://127.0.0.1:${server.port}/mcp`;
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    };
    const anyHost = await rawRequest(url, { headers: { ...headers, host: "mcp.example.com" }, body });
    expect(anyHost.status).toBe(200);
    const origin = await post(url, JSON.parse(body), {
      authorization: `Bearer ${token}`,
      origin: "https://app.example",
    });
    expect(origin.status).toBe(403);
    const noToken = await post(url, JSON.parse(body));
    expect(noToken.status).toBe(401);
  });
});

describe("credentials in --database-url", () => {
  it("the start-up error masks the password in the user part and in query parameters", async () => {
    const url = "postgres://app:userpass@127.0.0.1:1/x?password=s3cret&sslpassword=k3y&sslmode=disable";
    const { code, stderr } = await runCli(["--port", "0", "--database-url", url]);
    expect(code).toBe(2);
    expect(stderr).toContain("postgres://app:***@127.0.0.1:1/x?password=***&sslpassword=***&sslmode=disable");
    expect(stderr).not.toMatch(/userpass|s3cret|k3y/);
  });
});
