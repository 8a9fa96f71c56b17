import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, cleanup, runCli, tempDir } from "./helpers.js";

afterEach(cleanup);

const FLAGS =
  "--db, --database-url, --sqlite-driver, --packs, --read-only, --strict-arguments, --demo, --log-level, --config, --check-config, --help, --version";

/** Exit 2, nothing on stdout, exactly one line on stderr, and no stack trace. */
async function expectUsageError(args: string[], line: string | RegExp, env?: Record<string, string>) {
  const result = await runCli(args, env);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr.endsWith("\n")).toBe(true);
  expect(result.stderr.split("\n")).toHaveLength(2);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  if (typeof line === "string") expect(result.stderr).toBe(`${line}\n`);
  else expect(result.stderr).toMatch(line);
}

describe("flags and values that cannot work: one line on stderr, exit 2", () => {
  it("an unknown flag", async () => {
    await expectUsageError(["--bogus"], `toolshed-stdio: unknown option --bogus; the flags are ${FLAGS}`);
  });

  it("a misspelt flag: did you mean", async () => {
    await expectUsageError(
      ["--demo", "--raed-only"],
      "toolshed-stdio: unknown option --raed-only; did you mean --read-only?",
    );
  });

  it("a flag without its value", async () => {
    await expectUsageError(["--db"], "toolshed-stdio: --db needs a value, as in --db PATH");
  });

  it("a switch given a value", async () => {
    await expectUsageError(["--demo=yes"], "toolshed-stdio: --demo takes no value; pass --demo alone to turn it on");
  });

  it("an argument that is not a flag", async () => {
    await expectUsageError(
      ["notes"],
      `toolshed-stdio: unexpected argument "notes"; toolshed-stdio takes only flags: ${FLAGS}`,
    );
  });

  it("an unknown pack", async () => {
    await expectUsageError(
      ["--packs", "notes,wiki"],
      'toolshed-stdio: unknown pack "wiki"; choose from notes, tickets, crm',
    );
  });

  it("an unknown pack from TOOLSHED_PACKS", async () => {
    await expectUsageError(
      [],
      'toolshed-stdio: unknown pack "wiki"; choose from notes, tickets, crm',
      cleanEnv({ TOOLSHED_PACKS: "wiki" }),
    );
  });

  it("a bad log level", async () => {
    await expectUsageError(
      ["--log-level", "loud"],
      'toolshed-stdio: bad log level "loud"; choose from fatal, error, warn, info, debug, trace, silent',
    );
  });

  it("a switch variable that is neither on nor off", async () => {
    await expectUsageError(
      [],
      'toolshed-stdio: TOOLSHED_DEMO="maybe" is not a switch; use 1 or true to turn it on, 0 or false to turn it off',
      cleanEnv({ TOOLSHED_DEMO: "maybe" }),
    );
  });

  it("a database path that cannot be written", async () => {
    await expectUsageError(
      ["--db", "/proc/x/y.db"],
      /^toolshed-stdio: cannot create the folder for database \/proc\/x\/y\.db \([A-Z]+\); choose a writable path\n$/,
    );
  });

  it("a SQLite driver this Node cannot load names what would work", async () => {
    // node:sqlite needs Node 22.16; on later Nodes the better-sqlite3 addon here is built for Node 20.
    const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
    const driver = major > 22 || (major === 22 && minor >= 16) ? "better-sqlite3" : "node";
    const result = await runCli(["--db", tempDir().file("t.db"), "--sqlite-driver", driver]);
    if (driver === "better-sqlite3" && result.code !== 2) return; // built for this Node: nothing to refuse
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^toolshed-stdio: --sqlite-driver ${driver} cannot be used: [^\\n]*; (run on Node 22\\.16 or later|start with --sqlite-driver auto)[^\\n]*\\n$`,
      ),
    );
  });

  it("a file that is not a database", async () => {
    const file = tempDir().file("notes.txt");
    writeFileSync(file, "just some text, not SQLite at all\n".repeat(200));
    await expectUsageError(
      ["--db", file],
      `toolshed-stdio: cannot use database ${file} (SQLITE_NOTADB: file is not a database); choose another file or :memory:`,
    );
  });
});

describe("--help and --version", () => {
  it("--help prints the flags with their variables and exits 0", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/^toolshed-stdio 0\.1\.0: /);
    for (const text of [
      "--db PATH",
      "TOOLSHED_DB",
      "--packs LIST",
      "TOOLSHED_PACKS",
      "--read-only",
      "TOOLSHED_READ_ONLY",
    ]) {
      expect(result.stdout).toContain(text);
    }
    for (const text of ["--demo", "TOOLSHED_DEMO", "--log-level LEVEL", "TOOLSHED_LOG_LEVEL", "--version"]) {
      expect(result.stdout).toContain(text);
    }
  });

  it("--version prints the package version and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    const result = await runCli(["--version"]);
    expect(result).toEqual({ code: 0, signal: null, stdout: `${version}\n`, stderr: "" });
  });
});
