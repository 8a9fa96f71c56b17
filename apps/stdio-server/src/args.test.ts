import { describe, expect, it } from "vitest";
import { parseStdioArgs, StdioUsageError, usageText } from "./args.js";

const home = "/home/someone";
const parse = (argv: string[], env: Record<string, string> = {}) => parseStdioArgs(argv, env, { homeDir: home });

function usageError(argv: string[], env: Record<string, string> = {}): string {
  try {
    parse(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(StdioUsageError);
    return (error as Error).message;
  }
  throw new Error("expected a usage error");
}

describe("parseStdioArgs, OpenTelemetry", () => {
  it("OTEL_* variables ask for the SDK; without them the config says nothing of it", () => {
    expect(parse([]).openTelemetry).toBeUndefined();
    expect(parse([], { OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" }).openTelemetry).toBe(true);
    expect(parse([], { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }).openTelemetry).toBe(
      undefined,
    );
  });

  it("exporters that would write to stdout, the protocol channel, are refused", () => {
    for (const name of ["OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_LOGS_EXPORTER"]) {
      expect(usageError([], { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", [name]: "otlp,console" })).toBe(
        `${name}=console would write to stdout, which carries MCP messages; use otlp (OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318)`,
      );
    }
    expect(usageError([], { OTEL_TRACES_EXPORTER: "jaegr" })).toBe(
      'OTEL_TRACES_EXPORTER="jaegr" names no exporter; use otlp, zipkin, console, none',
    );
  });
});

describe("parseStdioArgs", () => {
  it("defaults: every pack, ~/.toolshed/toolshed.db, info, writable, no demo", () => {
    expect(parse([])).toEqual({
      command: "serve",
      db: "/home/someone/.toolshed/toolshed.db",
      packs: ["notes", "tickets", "crm"],
      packsGiven: false,
      readOnly: false,
      strictArguments: false,
      demo: false,
      logLevel: "info",
    });
  });

  it("--database-url or TOOLSHED_DATABASE_URL chooses PostgreSQL; a flag wins; other schemes are refused", () => {
    expect(parse(["--database-url", "postgres://u@db:5432/toolshed"]).databaseUrl).toBe(
      "postgres://u@db:5432/toolshed",
    );
    const env = { TOOLSHED_DATABASE_URL: "postgresql://env@db/t" };
    expect(parse([], env).databaseUrl).toBe("postgresql://env@db/t");
    expect(parse(["--database-url", "postgres://flag@db/t"], env).databaseUrl).toBe("postgres://flag@db/t");
    expect(() => parse(["--database-url", "sqlite:///x.db"])).toThrowError(
      '--database-url: database URL "sqlite:///x.db" is not a PostgreSQL URL; use postgres://USER:PASSWORD@HOST:5432/DATABASE',
    );
  });

  it("reads every flag", () => {
    expect(
      parse([
        "--db",
        "/data/t.db",
        "--packs",
        "notes,crm",
        "--read-only",
        "--strict-arguments",
        "--demo",
        "--log-level",
        "DEBUG",
      ]),
    ).toEqual({
      command: "serve",
      db: "/data/t.db",
      packs: ["notes", "crm"],
      packsGiven: true,
      readOnly: true,
      strictArguments: true,
      demo: true,
      logLevel: "debug",
    });
  });

  it("accepts --flag=value", () => {
    expect(parse(["--db=/x.db", "--packs=tickets"])).toMatchObject({ db: "/x.db", packs: ["tickets"] });
  });

  it("reads TOOLSHED_* variables when the flag is absent", () => {
    const env = {
      TOOLSHED_DB: "/env/t.db",
      TOOLSHED_PACKS: "crm",
      TOOLSHED_READ_ONLY: "true",
      TOOLSHED_STRICT_ARGUMENTS: "yes",
      TOOLSHED_DEMO: "1",
      TOOLSHED_LOG_LEVEL: "warn",
    };
    expect(parse([], env)).toEqual({
      command: "serve",
      db: "/env/t.db",
      packs: ["crm"],
      packsGiven: true,
      readOnly: true,
      strictArguments: true,
      demo: true,
      logLevel: "warn",
    });
  });

  it("a flag wins over its variable", () => {
    const env = { TOOLSHED_DB: "/env/t.db", TOOLSHED_PACKS: "crm", TOOLSHED_LOG_LEVEL: "warn" };
    expect(parse(["--db", "/flag.db", "--packs", "notes", "--log-level", "error"], env)).toMatchObject({
      db: "/flag.db",
      packs: ["notes"],
      logLevel: "error",
    });
  });

  it("switch variables: 0/false/no/off and empty are off", () => {
    for (const value of ["0", "false", "no", "off", "", "FALSE"]) {
      expect(parse([], { TOOLSHED_DEMO: value, TOOLSHED_READ_ONLY: value })).toMatchObject({
        demo: false,
        readOnly: false,
      });
    }
    for (const value of ["1", "true", "yes", "on", "True"]) {
      expect(parse([], { TOOLSHED_DEMO: value })).toMatchObject({ demo: true });
    }
  });

  it("empty variables count as unset", () => {
    expect(parse([], { TOOLSHED_DB: "", TOOLSHED_PACKS: " ", TOOLSHED_LOG_LEVEL: "" })).toMatchObject({
      db: "/home/someone/.toolshed/toolshed.db",
      packs: ["notes", "tickets", "crm"],
      logLevel: "info",
    });
  });

  it("expands a leading ~ in the database path (desktop clients start it without a shell)", () => {
    expect(parse(["--db", "~/notes/t.db"]).db).toBe("/home/someone/notes/t.db");
    expect(parse([], { TOOLSHED_DB: "~/x.db" }).db).toBe("/home/someone/x.db");
    expect(parse(["--db", ":memory:"]).db).toBe(":memory:");
  });

  it("--help and --version are commands", () => {
    expect(parse(["--help"]).command).toBe("help");
    expect(parse(["-h"]).command).toBe("help");
    expect(parse(["--version"]).command).toBe("version");
  });

  it("usage errors say what was wrong and what would work", () => {
    const flags =
      "--db, --database-url, --sqlite-driver, --packs, --read-only, --strict-arguments, --demo, --log-level, --config, --check-config, --help, --version";
    expect(usageError(["--nope"])).toBe(`unknown option --nope; the flags are ${flags}`);
    expect(usageError(["-x"])).toBe(`unknown option -x; the flags are ${flags}`);
    expect(usageError(["--packs"])).toBe("--packs needs a value, as in --packs LIST");
    expect(usageError(["--log-level", "--demo"])).toBe("--log-level needs a value, as in --log-level LEVEL");
    expect(usageError(["--read-only=1"])).toBe("--read-only takes no value; pass --read-only alone to turn it on");
    expect(usageError(["--db", ""])).toBe("--db needs a file path, such as ~/.toolshed/toolshed.db");
    expect(usageError(["--packs", ""])).toBe("no packs given; use a comma-separated list of notes, tickets, crm");
    expect(usageError(["--packs", "wiki,blog"])).toBe('unknown pack "wiki", "blog"; choose from notes, tickets, crm');
    expect(usageError([], { TOOLSHED_LOG_LEVEL: "verbose" })).toBe(
      'bad log level "verbose"; choose from fatal, error, warn, info, debug, trace, silent',
    );
    expect(usageError([], { TOOLSHED_READ_ONLY: "sure" })).toBe(
      'TOOLSHED_READ_ONLY="sure" is not a switch; use 1 or true to turn it on, 0 or false to turn it off',
    );
  });

  it("a misspelt flag gets the one it was meant to be", () => {
    expect(usageError(["--dmeo"])).toBe("unknown option --dmeo; did you mean --demo?");
    expect(usageError(["--read-onyl"])).toBe("unknown option --read-onyl; did you mean --read-only?");
    expect(usageError(["--databse-url", "postgres://db/t"])).toBe(
      "unknown option --databse-url; did you mean --database-url?",
    );
    expect(usageError(["--log=debug"])).toBe("unknown option --log; did you mean --log-level?");
    expect(usageError(["--DB", "/x.db"])).toBe("unknown option --DB; did you mean --db?");
  });

  it("--sqlite-driver or TOOLSHED_SQLITE_DRIVER picks the SQLite driver; a flag wins; unset is auto", () => {
    expect(parse([])).not.toHaveProperty("sqliteDriver");
    expect(parse(["--sqlite-driver", "node"]).sqliteDriver).toBe("node");
    expect(parse([], { TOOLSHED_SQLITE_DRIVER: "better-sqlite3" }).sqliteDriver).toBe("better-sqlite3");
    expect(parse(["--sqlite-driver", "auto"], { TOOLSHED_SQLITE_DRIVER: "node" }).sqliteDriver).toBe("auto");
    expect(usageError([], { TOOLSHED_SQLITE_DRIVER: "sqlite3" })).toBe(
      '--sqlite-driver: unknown SQLite driver "sqlite3"; choose auto, node, better-sqlite3 (auto: node:sqlite on Node 22.16 or later, else better-sqlite3)',
    );
  });

  it("every usage error is one line", () => {
    for (const argv of [["--nope"], ["--db"], ["x"], ["--demo=1"], ["--packs", "x"], ["--log-level", "x"]]) {
      expect(usageError(argv)).not.toContain("\n");
    }
  });
});

describe("usageText", () => {
  it("lists every flag with its variable", () => {
    const text = usageText("9.9.9");
    expect(text.split("\n")[0]).toBe(
      "toolshed-stdio 9.9.9: an MCP server over stdio with the Toolshed notes, tickets, crm packs",
    );
    expect(text).toContain("  --db PATH               SQLite file, created with its folders (env TOOLSHED_DB)\n");
    expect(text).toContain("  -h, --help              show this help\n");
  });

  it("keeps every flag apart from its text, in one column (issue 37: --sqlite-driver DRIVERSQLite)", () => {
    const rows = usageText("9.9.9")
      .split("\n")
      .filter((l) => /^ {2}-/.test(l));
    const columns = new Set(rows.map((l) => /^( {2}\S.*?\S) {2,}\S/.exec(l)?.[0].length));
    expect(columns.size, rows.join("\n")).toBe(1);
    expect(columns.has(undefined)).toBe(false);
  });
});
