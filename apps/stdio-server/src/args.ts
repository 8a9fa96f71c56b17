import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { didYouMean } from "@toolshed/errors";
import {
  checkDatabaseUrl,
  PACK_NAMES,
  PackConfigError,
  type PackEntry,
  type PackName,
  parsePackList,
  parseSqliteDriver,
  SQLITE_DRIVER_CHOICES,
  type SqliteDriverChoice,
} from "@toolshed/packs";
import { openTelemetryProblem, openTelemetryRequested } from "@toolshed/packs/telemetry";
import type { LogLevelName } from "@toolshed/server";

export const BIN_NAME = "toolshed-stdio";

export const LOG_LEVELS: readonly LogLevelName[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** What `toolshed-stdio` was asked to do. */
export type StdioCommand = "serve" | "help" | "version" | "check-config";

export interface StdioConfig {
  command: StdioCommand;
  /** SQLite file (created with its folders) or `:memory:`; unused with a database URL. */
  db: string;
  /** PostgreSQL URL (`postgres://…`) instead of the SQLite file. */
  databaseUrl?: string;
  /** Which SQLite driver opens the file; unset is `auto` (node:sqlite on Node 22.16 or later, else better-sqlite3). */
  sqliteDriver?: SqliteDriverChoice;
  /** Built-in pack names from --packs, or the packs a config file names. */
  packs: (PackName | PackEntry)[];
  /** Whether --packs or TOOLSHED_PACKS chose the packs (they win over a config file's). */
  packsGiven: boolean;
  /** The config file given with --config (or TOOLSHED_CONFIG). */
  configFile?: string;
  readOnly: boolean;
  /** Refuse arguments that only lax coercion would take ("5" for 5, "accountId" for account_id). */
  strictArguments: boolean;
  demo: boolean;
  logLevel: LogLevelName;
  /** Start the OpenTelemetry Node SDK: the OTEL_* variables ask for it (see openTelemetryRequested). */
  openTelemetry?: boolean;
}

/** A flag or environment value that cannot work; the message says what would. */
export class StdioUsageError extends Error {}

/** The flags, with the environment variable each one falls back to. */
export const STDIO_FLAGS = {
  db: { type: "string", env: "TOOLSHED_DB", value: "PATH", help: "SQLite file, created with its folders" },
  "database-url": {
    type: "string",
    env: "TOOLSHED_DATABASE_URL",
    value: "URL",
    help: "PostgreSQL (postgres://…) instead of SQLite",
  },
  "sqlite-driver": {
    type: "string",
    env: "TOOLSHED_SQLITE_DRIVER",
    value: "DRIVER",
    help: `SQLite driver: ${SQLITE_DRIVER_CHOICES.join("|")} (default auto)`,
  },
  packs: { type: "string", env: "TOOLSHED_PACKS", value: "LIST", help: `packs to serve (${PACK_NAMES.join(",")})` },
  "read-only": { type: "boolean", env: "TOOLSHED_READ_ONLY", help: "publish and accept only read-only tools" },
  "strict-arguments": {
    type: "boolean",
    env: "TOOLSHED_STRICT_ARGUMENTS",
    help: 'take tool arguments only as sent: no lax coercion ("5" for 5)',
  },
  demo: { type: "boolean", env: "TOOLSHED_DEMO", help: "seed demo data into empty stores" },
  "log-level": { type: "string", env: "TOOLSHED_LOG_LEVEL", value: "LEVEL", help: LOG_LEVELS.join("|") },
  config: {
    type: "string",
    env: "TOOLSHED_CONFIG",
    value: "FILE",
    help: "config file: packs by name, settings (default ./toolshed.config.json if it exists)",
  },
  "check-config": { type: "boolean", help: "check the config and print what would be served, then exit" },
  help: { type: "boolean", short: "h", help: "show this help" },
  version: { type: "boolean", help: "show the version" },
} as const;

const FLAG_LIST = Object.keys(STDIO_FLAGS)
  .map((f) => `--${f}`)
  .join(", ");

export interface ParseStdioArgsOptions {
  /** Home folder for the default database (default: os.homedir()). */
  homeDir?: string;
}

/**
 * Reads flags and `TOOLSHED_*` variables (a flag wins) into a config; throws StdioUsageError
 * with a one-line hint for anything that cannot work. Touches no file.
 */
export function parseStdioArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
  options: ParseStdioArgsOptions = {},
): StdioConfig {
  const home = options.homeDir ?? homedir();
  const { values } = readFlags(argv);
  const fromEnv = (name: string) => {
    const value = env[name]?.trim();
    return value === "" ? undefined : value;
  };
  const command: StdioCommand = values.help
    ? "help"
    : values.version
      ? "version"
      : values["check-config"]
        ? "check-config"
        : "serve";

  const db = values.db ?? fromEnv("TOOLSHED_DB") ?? join(home, ".toolshed", "toolshed.db");
  if (db.trim() === "") throw new StdioUsageError("--db needs a file path, such as ~/.toolshed/toolshed.db");

  const packsText = values.packs ?? fromEnv("TOOLSHED_PACKS");
  let packs: (PackName | PackEntry)[];
  try {
    packs = packsText === undefined ? [...PACK_NAMES] : parsePackList(packsText);
  } catch (error) {
    if (error instanceof PackConfigError) throw new StdioUsageError(error.message);
    throw error;
  }

  const level = (values["log-level"] ?? fromEnv("TOOLSHED_LOG_LEVEL") ?? "info").toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new StdioUsageError(`bad log level "${level}"; choose from ${LOG_LEVELS.join(", ")}`);
  }

  const databaseUrl = values["database-url"] ?? fromEnv("TOOLSHED_DATABASE_URL");
  if (databaseUrl !== undefined) {
    try {
      checkDatabaseUrl(databaseUrl);
    } catch (error) {
      if (error instanceof PackConfigError) throw new StdioUsageError(`--database-url: ${error.message}`);
      throw error;
    }
  }

  const sqliteDriverText = values["sqlite-driver"] ?? fromEnv("TOOLSHED_SQLITE_DRIVER");
  let sqliteDriver: StdioConfig["sqliteDriver"];
  try {
    sqliteDriver = sqliteDriverText === undefined ? undefined : parseSqliteDriver(sqliteDriverText);
  } catch (error) {
    if (error instanceof PackConfigError) throw new StdioUsageError(`--sqlite-driver: ${error.message}`);
    throw error;
  }

  const configFile = values.config ?? fromEnv("TOOLSHED_CONFIG");

  const openTelemetry = openTelemetryRequested(env);
  if (openTelemetry) {
    const problem = openTelemetryProblem(env, { stdio: true });
    if (problem !== undefined) throw new StdioUsageError(problem);
  }

  return {
    command,
    db: expandHome(db, home),
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    ...(sqliteDriver === undefined ? {} : { sqliteDriver }),
    packs,
    packsGiven: packsText !== undefined,
    ...(configFile === undefined ? {} : { configFile }),
    readOnly: values["read-only"] ?? envFlag(env, "TOOLSHED_READ_ONLY"),
    strictArguments: values["strict-arguments"] ?? envFlag(env, "TOOLSHED_STRICT_ARGUMENTS"),
    demo: values.demo ?? envFlag(env, "TOOLSHED_DEMO"),
    logLevel: level as LogLevelName,
    ...(openTelemetry ? { openTelemetry } : {}),
  };
}

function readFlags(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: STDIO_FLAGS, strict: true, allowPositionals: false });
  } catch (error) {
    throw new StdioUsageError(describeParseError(error as Error & { code?: string }));
  }
}

// node:util's messages are long and suggest `--`; these say which flag and what works.
function describeParseError(error: Error & { code?: string }): string {
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? "";
  const flag = quoted.split(" ")[0] ?? quoted;
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const meant = didYouMean(flag.replace(/^-+/, ""), Object.keys(STDIO_FLAGS));
      return meant === undefined
        ? `unknown option ${flag}; the flags are ${FLAG_LIST}`
        : `unknown option ${flag}; did you mean --${meant}?`;
    }
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument "${quoted}"; ${BIN_NAME} takes only flags: ${FLAG_LIST}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const name = flag.replace(/^-+/, "");
      const spec = STDIO_FLAGS[name as keyof typeof STDIO_FLAGS];
      if (spec && spec.type === "boolean") return `${flag} takes no value; pass ${flag} alone to turn it on`;
      const value = spec && "value" in spec ? spec.value : "VALUE";
      return `${flag} needs a value, as in ${flag} ${value}`;
    }
    default:
      return `${error.message}; the flags are ${FLAG_LIST}`;
  }
}

const TRUE = ["1", "true", "yes", "on"];
const FALSE = ["0", "false", "no", "off", ""];

function envFlag(env: Readonly<Record<string, string | undefined>>, name: string): boolean {
  const raw = env[name];
  if (raw === undefined) return false;
  const value = raw.trim().toLowerCase();
  if (TRUE.includes(value)) return true;
  if (FALSE.includes(value)) return false;
  throw new StdioUsageError(`${name}="${raw}" is not a switch; use 1 or true to turn it on, 0 or false to turn it off`);
}

// Desktop clients start the bin without a shell, so `~/x.db` arrives unexpanded.
function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}

/** The text of `--help`. */
export function usageText(version: string): string {
  const entries = Object.entries(STDIO_FLAGS).map(([name, spec]) => ({
    left: `  ${"short" in spec ? `-${spec.short}, ` : ""}--${name}${"value" in spec ? ` ${spec.value}` : ""}`,
    right: `${spec.help}${"env" in spec ? ` (env ${spec.env})` : ""}`,
  }));
  // The widest flag sets the column, with two spaces before its text.
  const width = Math.max(...entries.map((e) => e.left.length)) + 2;
  const rows = entries.map((e) => `${e.left.padEnd(width)}${e.right}`);
  return [
    `${BIN_NAME} ${version}: an MCP server over stdio with the Toolshed ${PACK_NAMES.join(", ")} packs`,
    "",
    `Usage: ${BIN_NAME} [--db PATH [--sqlite-driver DRIVER] | --database-url URL] [--packs LIST] [--read-only] [--demo] [--log-level LEVEL]`,
    "",
    ...rows,
    "",
    "Defaults: --db ~/.toolshed/toolshed.db, every pack, log level info. A flag wins over its variable.",
    "stdout carries MCP messages only; logs are JSON lines on stderr.",
    "Telemetry: the OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER=otlp, …) start the",
    "OpenTelemetry SDK, which sends spans and metrics over OTLP (docs/observability.md).",
    "",
  ].join("\n");
}
