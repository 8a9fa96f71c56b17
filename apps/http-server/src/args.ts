import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { didYouMean } from "@toolshed/errors";
import { HttpConfigError } from "@toolshed/http";
import {
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
import { parseCount, parseDuration, parseList, parseSize } from "./units.js";

export const BIN_NAME = "toolshed-http";

export const LOG_LEVELS: readonly LogLevelName[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** What `toolshed-http` was asked to do, with every default filled in. */
export interface HttpServerConfig {
  command: "serve" | "help" | "version" | "check-config";
  /** The config file given with --config (or TOOLSHED_CONFIG). */
  configFile?: string;
  host: string;
  port: number;
  /** SQLite file (created with its folders) or `:memory:`; unused with a database URL. */
  db: string;
  /** Which SQLite driver opens the file; unset is `auto` (node:sqlite on Node 22.16 or later, else better-sqlite3). */
  sqliteDriver?: SqliteDriverChoice;
  /** PostgreSQL URL: every instance given the same one shares notes, tickets and accounts. */
  databaseUrl?: string;
  /** PostgreSQL schema for the tables (created when missing). */
  databaseSchema?: string;
  /** Redis URL: the rate limit is counted there, shared by every instance. */
  redisUrl?: string;
  /** Prefix of the rate limiter's Redis keys and the change channel (default `toolshed:rl`, `toolshed:changes`). */
  redisPrefix?: string;
  /** TOOLSHED_STATE_SECRET: the HMAC key of 2026-07-28 requestState, shared by instances. */
  stateSecret?: string;
  /** Built-in pack names from --packs, or the packs a config file names. */
  packs: (PackName | PackEntry)[];
  /** Whether --packs or TOOLSHED_PACKS chose the packs (they win over a config file's). */
  packsGiven: boolean;
  readOnly: boolean;
  /** Refuse arguments that only lax coercion would take ("5" for 5, "accountId" for account_id). */
  strictArguments: boolean;
  demo: boolean;
  sessions: boolean;
  sessionIdleTimeoutMs: number;
  /** Sessions one token (or, without auth, one address) may hold; over it its least recently used idle one closes. */
  sessionsPerClient: number;
  /** 2026-07-28 subscriptions/listen streams one token (or address) may hold open. */
  listensPerClient: number;
  logLevel: LogLevelName;
  tokensFile?: string;
  /** TOOLSHED_TOKENS text: `TOKEN:SCOPES;TOKEN:SCOPES`. */
  tokens?: string;
  jwksUrl?: string;
  jwtIssuer?: string;
  jwtAudience?: string;
  /** How long the last good JWKS keys are used while the key set cannot be fetched (library default 24 h). */
  jwksMaxStaleMs?: number;
  /** Shortest time between two key-set fetches (library default 30 s). */
  jwksCooldownMs?: number;
  /** How long to wait for the key set (library default 5 s). */
  jwksTimeoutMs?: number;
  /** Largest key-set response (library default 256 KiB). */
  jwksMaxBytes?: number;
  /** Clock difference allowed on a token's exp and nbf, JWT or introspected (library default 5 s). */
  clockToleranceSec?: number;
  /** RFC 7662 introspection endpoint for opaque tokens. */
  introspectionUrl?: string;
  /** This server's client id at the authorization server. */
  introspectionClientId?: string;
  /** TOOLSHED_INTROSPECTION_CLIENT_SECRET: never a flag, whose value would show in `ps`. */
  introspectionClientSecret?: string;
  /** A file holding the client secret (read at start-up), instead of the variable. */
  introspectionClientSecretFile?: string;
  introspectionIssuer?: string;
  introspectionAudience?: string;
  /** Page origins allowed to call from a browser (CORS). */
  corsOrigins?: string[];
  allowedHosts?: string[];
  allowedOrigins?: string[];
  publicUrl?: string;
  maxBodyBytes: number;
  /** Largest JSON of one tool result (bytes); larger is a `too_large` tool error. */
  maxResultBytes: number;
  /** Largest JSON answer to one batch POST (bytes); calls past it get a `too_large` error. */
  maxBatchBytes: number;
  /** How long a client may leave its answer unread before its connection is closed. */
  writeTimeoutMs: number;
  rateLimit: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** Serve Prometheus text at GET /metrics (on the main port, or on `metricsPort`). */
  metrics: boolean;
  /** A second listener, on the same host, that serves only /metrics (implies `metrics`). */
  metricsPort?: number;
  /** Start the OpenTelemetry Node SDK: the OTEL_* variables ask for it (see openTelemetryRequested). */
  openTelemetry: boolean;
}

/** The flags, with the environment variable each falls back to (a flag wins). */
export const HTTP_FLAGS = {
  host: { type: "string", env: "TOOLSHED_HOST", value: "ADDRESS", help: "address to bind (default 127.0.0.1)" },
  port: { type: "string", env: "TOOLSHED_PORT", value: "PORT", help: "port (default 3000; 0 picks a free one)" },
  db: { type: "string", env: "TOOLSHED_DB", value: "PATH", help: "SQLite file (default ~/.toolshed/toolshed.db)" },
  "sqlite-driver": {
    type: "string",
    env: "TOOLSHED_SQLITE_DRIVER",
    value: "DRIVER",
    help: `SQLite driver: ${SQLITE_DRIVER_CHOICES.join("|")} (default auto)`,
  },
  "database-url": {
    type: "string",
    env: "TOOLSHED_DATABASE_URL",
    value: "URL",
    help: "PostgreSQL (postgres://…) instead of SQLite; shared by instances",
  },
  "database-schema": {
    type: "string",
    env: "TOOLSHED_DATABASE_SCHEMA",
    value: "NAME",
    help: "PostgreSQL schema for the tables (created if missing)",
  },
  "redis-url": {
    type: "string",
    env: "TOOLSHED_REDIS_URL",
    value: "URL",
    help: "Redis (redis://…) for a rate limit shared by instances",
  },
  "redis-prefix": {
    type: "string",
    env: "TOOLSHED_REDIS_PREFIX",
    value: "PREFIX",
    help: "prefix of the rate limit's Redis keys (default toolshed:rl)",
  },
  packs: { type: "string", env: "TOOLSHED_PACKS", value: "LIST", help: `packs to serve (${PACK_NAMES.join(",")})` },
  "read-only": { type: "boolean", env: "TOOLSHED_READ_ONLY", help: "publish and accept only read-only tools" },
  "strict-arguments": {
    type: "boolean",
    env: "TOOLSHED_STRICT_ARGUMENTS",
    help: 'take tool arguments only as sent: no lax coercion ("5" for 5)',
  },
  demo: { type: "boolean", env: "TOOLSHED_DEMO", help: "seed demo data into empty stores" },
  sessions: { type: "boolean", env: "TOOLSHED_SESSIONS", help: "stateful sessions (sampling, elicitation)" },
  "session-idle-timeout": {
    type: "string",
    env: "TOOLSHED_SESSION_IDLE_TIMEOUT",
    value: "TIME",
    help: "close sessions idle this long (default 30m)",
  },
  "sessions-per-client": {
    type: "string",
    env: "TOOLSHED_SESSIONS_PER_CLIENT",
    value: "N",
    help: "sessions one token or address may hold (default 100)",
  },
  "listens-per-client": {
    type: "string",
    env: "TOOLSHED_LISTENS_PER_CLIENT",
    value: "N",
    help: "subscriptions/listen streams one token or address may hold open (default 16)",
  },
  "log-level": { type: "string", env: "TOOLSHED_LOG_LEVEL", value: "LEVEL", help: LOG_LEVELS.join("|") },
  "tokens-file": {
    type: "string",
    env: "TOOLSHED_TOKENS_FILE",
    value: "PATH",
    help: "bearer tokens: JSON or lines of `TOKEN SCOPES`",
  },
  "jwks-url": { type: "string", env: "TOOLSHED_JWKS_URL", value: "URL", help: "accept JWTs signed by these keys" },
  "jwt-issuer": { type: "string", env: "TOOLSHED_JWT_ISSUER", value: "ISSUER", help: "required iss of JWTs" },
  "jwt-audience": { type: "string", env: "TOOLSHED_JWT_AUDIENCE", value: "AUDIENCE", help: "required aud of JWTs" },
  "jwks-max-stale": {
    type: "string",
    env: "TOOLSHED_JWKS_MAX_STALE",
    value: "TIME",
    help: "keep using the last good keys this long while the JWKS is down (default 24h)",
  },
  "jwks-cooldown": {
    type: "string",
    env: "TOOLSHED_JWKS_COOLDOWN",
    value: "TIME",
    help: "fetch the JWKS at most once this often (default 30s)",
  },
  "jwks-timeout": {
    type: "string",
    env: "TOOLSHED_JWKS_TIMEOUT",
    value: "TIME",
    help: "wait this long for the JWKS (default 5s)",
  },
  "jwks-max-bytes": {
    type: "string",
    env: "TOOLSHED_JWKS_MAX_BYTES",
    value: "BYTES",
    help: "largest JWKS response (default 256k)",
  },
  "clock-tolerance": {
    type: "string",
    env: "TOOLSHED_CLOCK_TOLERANCE",
    value: "TIME",
    help: "clock difference allowed on token exp and nbf (default 5s)",
  },
  "introspection-url": {
    type: "string",
    env: "TOOLSHED_INTROSPECTION_URL",
    value: "URL",
    help: "check opaque tokens at this RFC 7662 endpoint",
  },
  "introspection-client-id": {
    type: "string",
    env: "TOOLSHED_INTROSPECTION_CLIENT_ID",
    value: "ID",
    help: "this server's client id there (secret: TOOLSHED_INTROSPECTION_CLIENT_SECRET)",
  },
  "introspection-client-secret-file": {
    type: "string",
    env: "TOOLSHED_INTROSPECTION_CLIENT_SECRET_FILE",
    value: "PATH",
    help: "or a file holding the client secret",
  },
  "introspection-issuer": {
    type: "string",
    env: "TOOLSHED_INTROSPECTION_ISSUER",
    value: "ISSUER",
    help: "required iss of introspected tokens",
  },
  "introspection-audience": {
    type: "string",
    env: "TOOLSHED_INTROSPECTION_AUDIENCE",
    value: "AUDIENCE",
    help: "required aud of introspected tokens",
  },
  "cors-origins": {
    type: "string",
    env: "TOOLSHED_CORS_ORIGINS",
    value: "LIST",
    help: "browser pages allowed to call (CORS), as https://app.example",
  },
  "allowed-hosts": {
    type: "string",
    env: "TOOLSHED_ALLOWED_HOSTS",
    value: "LIST",
    help: "Host headers accepted (default loopback names; * any)",
  },
  "allowed-origins": {
    type: "string",
    env: "TOOLSHED_ALLOWED_ORIGINS",
    value: "LIST",
    help: "browser Origins accepted (default: the allowed hosts; * any)",
  },
  "public-url": {
    type: "string",
    env: "TOOLSHED_PUBLIC_URL",
    value: "URL",
    help: "base URL clients use, when behind a proxy",
  },
  "max-body": { type: "string", env: "TOOLSHED_MAX_BODY", value: "BYTES", help: "largest request body (default 1m)" },
  "max-result": {
    type: "string",
    env: "TOOLSHED_MAX_RESULT",
    value: "BYTES",
    help: "largest tool result; larger is a too_large tool error (default 4m)",
  },
  "max-batch-answer": {
    type: "string",
    env: "TOOLSHED_MAX_BATCH_ANSWER",
    value: "BYTES",
    help: "largest answer to one batch; calls past it get too_large (default 16m)",
  },
  "write-timeout": {
    type: "string",
    env: "TOOLSHED_WRITE_TIMEOUT",
    value: "TIME",
    help: "close a connection whose client leaves its answer unread this long (default 30s)",
  },
  "rate-limit": {
    type: "string",
    env: "TOOLSHED_RATE_LIMIT",
    value: "N",
    help: "requests per minute per token or address (default 600; 0 off)",
  },
  "request-timeout": {
    type: "string",
    env: "TOOLSHED_REQUEST_TIMEOUT",
    value: "TIME",
    help: "time to receive a whole request (default 30s)",
  },
  "shutdown-timeout": {
    type: "string",
    env: "TOOLSHED_SHUTDOWN_TIMEOUT",
    value: "TIME",
    help: "wait this long for running calls on SIGTERM (default 10s)",
  },
  metrics: {
    type: "boolean",
    env: "TOOLSHED_METRICS",
    help: "serve Prometheus metrics at GET /metrics",
  },
  "metrics-port": {
    type: "string",
    env: "TOOLSHED_METRICS_PORT",
    value: "PORT",
    help: "serve /metrics on this port instead (implies --metrics)",
  },
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

type FlagName = keyof typeof HTTP_FLAGS;

const FLAG_LIST = Object.keys(HTTP_FLAGS)
  .map((f) => `--${f}`)
  .join(", ");

export interface ParseHttpArgsOptions {
  /** Home folder for the default database (default: os.homedir()). */
  homeDir?: string;
}

/**
 * Reads flags and `TOOLSHED_*` variables (a flag wins) into a config; throws HttpConfigError
 * with a one-line hint for anything that cannot work. Reads no file.
 */
export function parseHttpArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
  options: ParseHttpArgsOptions = {},
): HttpServerConfig {
  const home = options.homeDir ?? homedir();
  const values = readFlags(argv);
  const get = (flag: FlagName): string | undefined => {
    const given = values[flag];
    if (typeof given === "string") return given;
    const spec = HTTP_FLAGS[flag];
    const raw = "env" in spec ? env[spec.env]?.trim() : undefined;
    return raw === "" ? undefined : raw;
  };
  const on = (flag: FlagName): boolean => {
    const given = values[flag];
    if (typeof given === "boolean") return given;
    const spec = HTTP_FLAGS[flag];
    return "env" in spec ? envSwitch(env, spec.env) : false;
  };

  const host = get("host") ?? "127.0.0.1";
  const db = get("db") ?? join(home, ".toolshed", "toolshed.db");
  const level = (get("log-level") ?? "info").toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new HttpConfigError(`bad log level "${level}"; choose from ${LOG_LEVELS.join(", ")}`);
  }
  const config: HttpServerConfig = {
    command: values.help ? "help" : values.version ? "version" : values["check-config"] ? "check-config" : "serve",
    host,
    port: parseCount("--port", get("port") ?? "3000", 0, 65_535),
    db: expandHome(db, home),
    packs: packsOf(get("packs")),
    packsGiven: get("packs") !== undefined,
    readOnly: on("read-only"),
    strictArguments: on("strict-arguments"),
    demo: on("demo"),
    sessions: on("sessions"),
    sessionIdleTimeoutMs: parseDuration("--session-idle-timeout", get("session-idle-timeout") ?? "30m"),
    sessionsPerClient: parseCount("--sessions-per-client", get("sessions-per-client") ?? "100", 1, 1_000_000),
    listensPerClient: parseCount("--listens-per-client", get("listens-per-client") ?? "16", 1, 1_000_000),
    logLevel: level as LogLevelName,
    maxBodyBytes: parseSize("--max-body", get("max-body") ?? "1m"),
    maxResultBytes: parseSize("--max-result", get("max-result") ?? "4m"),
    maxBatchBytes: parseSize("--max-batch-answer", get("max-batch-answer") ?? "16m"),
    writeTimeoutMs: parseDuration("--write-timeout", get("write-timeout") ?? "30s"),
    rateLimit: parseCount("--rate-limit", get("rate-limit") ?? "600", 0, 1_000_000),
    requestTimeoutMs: parseDuration("--request-timeout", get("request-timeout") ?? "30s"),
    shutdownTimeoutMs: parseDuration("--shutdown-timeout", get("shutdown-timeout") ?? "10s", { allowZero: true }),
    metrics: on("metrics"),
    openTelemetry: openTelemetryRequested(env),
  };
  const metricsPort = get("metrics-port");
  if (metricsPort !== undefined) {
    config.metricsPort = parseCount("--metrics-port", metricsPort, 0, 65_535);
    config.metrics = true;
  }
  const optional = {
    configFile: get("config"),
    tokensFile: get("tokens-file"),
    tokens: env.TOOLSHED_TOKENS?.trim() || undefined,
    jwksUrl: get("jwks-url"),
    jwtIssuer: get("jwt-issuer"),
    jwtAudience: get("jwt-audience"),
    introspectionUrl: get("introspection-url"),
    introspectionClientId: get("introspection-client-id"),
    introspectionClientSecret: env.TOOLSHED_INTROSPECTION_CLIENT_SECRET || undefined,
    introspectionClientSecretFile: get("introspection-client-secret-file"),
    introspectionIssuer: get("introspection-issuer"),
    introspectionAudience: get("introspection-audience"),
    publicUrl: get("public-url"),
    databaseUrl: get("database-url"),
    databaseSchema: get("database-schema"),
    redisUrl: get("redis-url"),
    redisPrefix: get("redis-prefix"),
    stateSecret: env.TOOLSHED_STATE_SECRET || undefined,
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(config, { [key]: value });
  readTokenLimits(config, get);
  const sqliteDriver = get("sqlite-driver");
  if (sqliteDriver !== undefined) config.sqliteDriver = sqliteDriverOf(sqliteDriver);
  const hosts = get("allowed-hosts");
  if (hosts !== undefined) config.allowedHosts = parseList(hosts);
  const origins = get("allowed-origins");
  if (origins !== undefined) config.allowedOrigins = parseList(origins);
  // Each origin is checked by @toolshed/http when the app is made (HttpConfigError, exit 2).
  const cors = get("cors-origins");
  if (cors !== undefined) config.corsOrigins = parseList(cors);
  checkConfig(config, env);
  return config;
}

function checkConfig(config: HttpServerConfig, env: Readonly<Record<string, string | undefined>>): void {
  if (config.host === "") throw new HttpConfigError("--host needs an address, such as 127.0.0.1 or 0.0.0.0");
  if (config.db.trim() === "") throw new HttpConfigError("--db needs a file path, such as ~/.toolshed/toolshed.db");
  if (config.jwksUrl !== undefined) {
    checkUrl("--jwks-url", config.jwksUrl);
    if (!config.jwtIssuer || !config.jwtAudience) {
      throw new HttpConfigError(
        "--jwks-url needs --jwt-issuer (the iss of accepted tokens) and --jwt-audience (their aud, this server's id or URL)",
      );
    }
  } else if (config.jwtIssuer !== undefined || config.jwtAudience !== undefined) {
    throw new HttpConfigError("--jwt-issuer and --jwt-audience need --jwks-url, the key set tokens are checked with");
  }
  checkTokenLimits(config);
  checkIntrospection(config);
  if (config.metricsPort !== undefined && config.metricsPort !== 0 && config.metricsPort === config.port) {
    throw new HttpConfigError(
      `--metrics-port ${config.metricsPort} is also --port; give it another port, or drop it to serve /metrics on the main port`,
    );
  }
  if (config.openTelemetry) {
    const problem = openTelemetryProblem(env);
    if (problem !== undefined) throw new HttpConfigError(problem);
  }
  if (config.publicUrl !== undefined) checkUrl("--public-url", config.publicUrl);
  if (config.stateSecret !== undefined && Buffer.byteLength(config.stateSecret) < 16) {
    throw new HttpConfigError(
      "TOOLSHED_STATE_SECRET must be at least 16 bytes (32 random bytes recommended, e.g. openssl rand -hex 32)",
    );
  }
  if (config.databaseUrl !== undefined) {
    checkScheme(
      "--database-url",
      config.databaseUrl,
      ["postgres:", "postgresql:"],
      "postgres://USER:PASSWORD@HOST:5432/DATABASE",
    );
  } else if (config.databaseSchema !== undefined) {
    throw new HttpConfigError("--database-schema needs --database-url; SQLite has no schemas");
  }
  if (config.databaseSchema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(config.databaseSchema)) {
    throw new HttpConfigError(
      `--database-schema "${config.databaseSchema}" is not a plain PostgreSQL name; use lower-case letters, digits and _, such as toolshed`,
    );
  }
  if (config.redisUrl !== undefined) {
    checkScheme("--redis-url", config.redisUrl, ["redis:", "rediss:"], "redis://HOST:6379");
  } else if (config.redisPrefix !== undefined) {
    throw new HttpConfigError("--redis-prefix needs --redis-url");
  }
  if (config.corsOrigins !== undefined && config.corsOrigins.length === 0) {
    throw new HttpConfigError("--cors-origins needs at least one origin, as in --cors-origins https://app.example.com");
  }
  const authenticated = config.tokensFile || config.tokens || config.jwksUrl || config.introspectionUrl;
  if (config.command === "serve" && !authenticated) {
    // Checked again once tokens are loaded; this fails before any file or port is touched.
    if (!/^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i.test(config.host)) {
      throw new HttpConfigError(
        `refusing to serve ${config.host} without authentication; add --tokens-file PATH (or TOOLSHED_TOKENS), --jwks-url URL or --introspection-url URL, or bind to 127.0.0.1`,
      );
    }
  }
}

const JWKS_LIMITS = [
  ["jwks-max-stale", "jwksMaxStaleMs"],
  ["jwks-cooldown", "jwksCooldownMs"],
  ["jwks-timeout", "jwksTimeoutMs"],
] as const;
const MAX_CLOCK_TOLERANCE_MS = 300_000;

function readTokenLimits(config: HttpServerConfig, get: (flag: FlagName) => string | undefined): void {
  for (const [flag, key] of JWKS_LIMITS) {
    const value = get(flag);
    if (value !== undefined) config[key] = parseDuration(`--${flag}`, value);
  }
  const maxBytes = get("jwks-max-bytes");
  if (maxBytes !== undefined) config.jwksMaxBytes = parseSize("--jwks-max-bytes", maxBytes);
  const tolerance = get("clock-tolerance");
  if (tolerance !== undefined) {
    const ms = parseDuration("--clock-tolerance", tolerance, { allowZero: true });
    if (ms > MAX_CLOCK_TOLERANCE_MS) {
      throw new HttpConfigError(
        `--clock-tolerance "${tolerance}" is more than 5m; a tolerance that large keeps accepting tokens long after they expire`,
      );
    }
    config.clockToleranceSec = ms / 1000;
  }
}

function checkTokenLimits(config: HttpServerConfig): void {
  if (config.jwksUrl === undefined) {
    const stray = [
      ...JWKS_LIMITS.filter(([, key]) => config[key] !== undefined).map(([flag]) => `--${flag}`),
      ...(config.jwksMaxBytes !== undefined ? ["--jwks-max-bytes"] : []),
    ];
    if (stray.length > 0) {
      const one = stray.length === 1;
      throw new HttpConfigError(
        `${stray.join(" and ")} need${one ? "s" : ""} --jwks-url, the key set ${one ? "it limits" : "they limit"}`,
      );
    }
  }
  if (config.clockToleranceSec !== undefined && config.jwksUrl === undefined && config.introspectionUrl === undefined) {
    throw new HttpConfigError(
      "--clock-tolerance needs --jwks-url or --introspection-url: it applies to the tokens they check",
    );
  }
}

const SECRET_SOURCES = "TOOLSHED_INTROSPECTION_CLIENT_SECRET (or --introspection-client-secret-file PATH)";

function checkIntrospection(config: HttpServerConfig): void {
  const hasSecret =
    config.introspectionClientSecret !== undefined || config.introspectionClientSecretFile !== undefined;
  if (config.introspectionUrl === undefined) {
    const stray = [
      config.introspectionClientId !== undefined ? "--introspection-client-id" : undefined,
      config.introspectionClientSecret !== undefined ? "TOOLSHED_INTROSPECTION_CLIENT_SECRET" : undefined,
      config.introspectionClientSecretFile !== undefined ? "--introspection-client-secret-file" : undefined,
      config.introspectionIssuer !== undefined ? "--introspection-issuer" : undefined,
      config.introspectionAudience !== undefined ? "--introspection-audience" : undefined,
    ].filter((s) => s !== undefined);
    if (stray.length > 0) {
      throw new HttpConfigError(
        `${stray.join(" and ")} need${stray.length === 1 ? "s" : ""} --introspection-url, the endpoint tokens are checked at`,
      );
    }
    return;
  }
  checkUrl("--introspection-url", config.introspectionUrl, "https://auth.example.com/oauth2/introspect");
  if (config.introspectionClientId === undefined || !hasSecret) {
    throw new HttpConfigError(
      `--introspection-url needs --introspection-client-id and ${SECRET_SOURCES}: this server's credentials at the authorization server`,
    );
  }
  if (config.introspectionClientSecret !== undefined && config.introspectionClientSecretFile !== undefined) {
    throw new HttpConfigError(
      "give the introspection client secret once: TOOLSHED_INTROSPECTION_CLIENT_SECRET or --introspection-client-secret-file, not both",
    );
  }
}

function checkUrl(flag: string, value: string, example = "https://auth.example.com/jwks.json"): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new HttpConfigError(`${flag} "${value}" is not an http(s) URL, such as ${example}`);
  }
}

// Connection URLs carry passwords: the message shows the scheme only.
function checkScheme(flag: string, value: string, protocols: readonly string[], example: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === undefined || !protocols.includes(protocol)) {
    const got = protocol === undefined ? "not a URL" : `a ${protocol.slice(0, -1)} URL`;
    throw new HttpConfigError(`${flag} is ${got}; use ${example}`);
  }
}

function packsOf(text: string | undefined): PackName[] {
  if (text === undefined) return [...PACK_NAMES];
  try {
    return parsePackList(text);
  } catch (error) {
    if (error instanceof PackConfigError) throw new HttpConfigError(error.message);
    throw error;
  }
}

function sqliteDriverOf(text: string): SqliteDriverChoice {
  try {
    return parseSqliteDriver(text);
  } catch (error) {
    if (error instanceof PackConfigError) throw new HttpConfigError(`--sqlite-driver: ${error.message}`);
    throw error;
  }
}

function readFlags(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: HTTP_FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new HttpConfigError(describeParseError(error as Error & { code?: string }));
  }
}

// node:util's messages are long and suggest `--`; these say which flag and what works.
function describeParseError(error: Error & { code?: string }): string {
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? "";
  const flag = quoted.split(" ")[0] ?? quoted;
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      if (flag === "--introspection-client-secret") {
        return `${flag} is not a flag, so that the secret never shows in ps; set ${SECRET_SOURCES}`;
      }
      const meant = didYouMean(flag.replace(/^-+/, ""), Object.keys(HTTP_FLAGS));
      return meant === undefined
        ? `unknown option ${flag}; the flags are ${FLAG_LIST}`
        : `unknown option ${flag}; did you mean --${meant}?`;
    }
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument "${quoted}"; values follow their flag, as in --port ${quoted}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const spec = HTTP_FLAGS[flag.replace(/^-+/, "") as FlagName];
      if (spec && spec.type === "boolean") return `${flag} takes no value; pass ${flag} alone to turn it on`;
      return `${flag} needs a value, as in ${flag} ${spec && "value" in spec ? spec.value : "VALUE"}`;
    }
    default:
      return `${error.message}; the flags are ${FLAG_LIST}`;
  }
}

const TRUE = ["1", "true", "yes", "on"];
const FALSE = ["0", "false", "no", "off", ""];

function envSwitch(env: Readonly<Record<string, string | undefined>>, name: string): boolean {
  const raw = env[name];
  if (raw === undefined) return false;
  const value = raw.trim().toLowerCase();
  if (TRUE.includes(value)) return true;
  if (FALSE.includes(value)) return false;
  throw new HttpConfigError(`${name}="${raw}" is not a switch; use 1 or true to turn it on, 0 or false to turn it off`);
}

// Process managers start the bin without a shell, so `~/x.db` arrives unexpanded.
function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}

/** The text of `--help`. */
export function usageText(version: string): string {
  const entries = Object.entries(HTTP_FLAGS).map(([name, spec]) => ({
    left: `  ${"short" in spec ? `-${spec.short}, ` : ""}--${name}${"value" in spec ? ` ${spec.value}` : ""}`,
    right: `${spec.help}${"env" in spec ? ` [${spec.env}]` : ""}`,
  }));
  // The widest flag sets the column, with two spaces before its text.
  const width = Math.max(...entries.map((e) => e.left.length)) + 2;
  const rows = entries.map((e) => `${e.left.padEnd(width)}${e.right}`);
  return [
    `${BIN_NAME} ${version}: an MCP server over Streamable HTTP with the Toolshed ${PACK_NAMES.join(", ")} packs`,
    "",
    `Usage: ${BIN_NAME} [flags]    (serves http://127.0.0.1:3000/mcp by default)`,
    "",
    ...rows,
    "",
    'Tokens: --tokens-file holds JSON [{"token": "…", "scopes": ["tools:read"], "id": "ci"}] (add',
    '"rate_limit": N for a per-token limit) or lines `TOKEN tools:read tools:write`; TOOLSHED_TOKENS',
    "holds `TOKEN:SCOPES;TOKEN:SCOPES`. A token with only tools:read sees and calls only read-only",
    "tools. Opaque tokens: --introspection-url with --introspection-client-id, the secret in",
    "TOOLSHED_INTROSPECTION_CLIENT_SECRET or --introspection-client-secret-file (never a flag value).",
    "Without tokens, --jwks-url or --introspection-url the server must bind to loopback. With",
    "--database-url and --redis-url, instances behind one load balancer share data and rate limits",
    "(docs/deploy.md). --cors-origins lets pages from those origins call from a browser.",
    "Telemetry: the OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER=otlp, …) start",
    "the OpenTelemetry SDK; --metrics serves Prometheus text at /metrics (docs/observability.md).",
    "Times: seconds (10) or 500ms, 10s, 30m, 1h. Sizes: bytes or 512k, 1m.",
    "",
  ].join("\n");
}
