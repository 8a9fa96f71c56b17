import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import { type AnyPackDescriptor, isPackDescriptor, type PackChange, parseArguments } from "@toolshed/schema";
import { z } from "zod";
import { redactDatabaseUrl } from "./database-url.js";
import {
  BUILT_IN_PACKS,
  buildPack,
  checkedOptions,
  type PackDatabase,
  type PackEntry,
  PackOptionsError,
} from "./pack-entry.js";
import { PACK_NAMES, PackConfigError, type PackName } from "./pack-names.js";

/** The file both servers read when it exists and no --config is given. */
export const CONFIG_FILE_NAME = "toolshed.config.json";

type SettingKind = "string" | "boolean" | "count" | "amount" | "list";

/**
 * The server settings a config file may hold: each is a flag of the servers (its environment
 * variable in `env`), and a flag or variable given wins over the file.
 */
export const SERVER_SETTINGS = {
  host: { flag: "host", env: "TOOLSHED_HOST", kind: "string", help: "address to bind (default 127.0.0.1)" },
  port: { flag: "port", env: "TOOLSHED_PORT", kind: "count", help: "port (default 3000; 0 picks a free one)" },
  db: { flag: "db", env: "TOOLSHED_DB", kind: "string", help: "SQLite file (default ~/.toolshed/toolshed.db)" },
  sqliteDriver: {
    flag: "sqlite-driver",
    env: "TOOLSHED_SQLITE_DRIVER",
    kind: "string",
    help: "SQLite driver: auto|node|better-sqlite3 (default auto)",
  },
  databaseUrl: {
    flag: "database-url",
    env: "TOOLSHED_DATABASE_URL",
    kind: "string",
    help: "PostgreSQL (postgres://…) instead of SQLite; shared by instances",
  },
  databaseSchema: {
    flag: "database-schema",
    env: "TOOLSHED_DATABASE_SCHEMA",
    kind: "string",
    help: "PostgreSQL schema for the tables (created if missing)",
  },
  redisUrl: {
    flag: "redis-url",
    env: "TOOLSHED_REDIS_URL",
    kind: "string",
    help: "Redis (redis://…) for a rate limit shared by instances",
  },
  redisPrefix: {
    flag: "redis-prefix",
    env: "TOOLSHED_REDIS_PREFIX",
    kind: "string",
    help: "prefix of the rate limit's Redis keys (default toolshed:rl)",
  },
  readOnly: {
    flag: "read-only",
    env: "TOOLSHED_READ_ONLY",
    kind: "boolean",
    help: "publish and accept only read-only tools",
  },
  strictArguments: {
    flag: "strict-arguments",
    env: "TOOLSHED_STRICT_ARGUMENTS",
    kind: "boolean",
    help: 'take tool arguments only as sent: no lax coercion ("5" for 5)',
  },
  demo: { flag: "demo", env: "TOOLSHED_DEMO", kind: "boolean", help: "seed demo data into empty stores" },
  sessions: {
    flag: "sessions",
    env: "TOOLSHED_SESSIONS",
    kind: "boolean",
    help: "stateful sessions (sampling, elicitation)",
  },
  sessionIdleTimeout: {
    flag: "session-idle-timeout",
    env: "TOOLSHED_SESSION_IDLE_TIMEOUT",
    kind: "amount",
    help: "close sessions idle this long (default 30m)",
  },
  sessionsPerClient: {
    flag: "sessions-per-client",
    env: "TOOLSHED_SESSIONS_PER_CLIENT",
    kind: "count",
    help: "sessions one token or address may hold (default 100)",
  },
  listensPerClient: {
    flag: "listens-per-client",
    env: "TOOLSHED_LISTENS_PER_CLIENT",
    kind: "count",
    help: "subscriptions/listen streams one token or address may hold open (default 16)",
  },
  logLevel: {
    flag: "log-level",
    env: "TOOLSHED_LOG_LEVEL",
    kind: "string",
    help: "fatal|error|warn|info|debug|trace|silent",
  },
  tokensFile: {
    flag: "tokens-file",
    env: "TOOLSHED_TOKENS_FILE",
    kind: "string",
    help: "bearer tokens: JSON or lines of `TOKEN SCOPES`",
  },
  jwksUrl: { flag: "jwks-url", env: "TOOLSHED_JWKS_URL", kind: "string", help: "accept JWTs signed by these keys" },
  jwtIssuer: { flag: "jwt-issuer", env: "TOOLSHED_JWT_ISSUER", kind: "string", help: "required iss of JWTs" },
  jwtAudience: { flag: "jwt-audience", env: "TOOLSHED_JWT_AUDIENCE", kind: "string", help: "required aud of JWTs" },
  jwksMaxStale: {
    flag: "jwks-max-stale",
    env: "TOOLSHED_JWKS_MAX_STALE",
    kind: "amount",
    help: "keep using the last good keys this long while the JWKS is down (default 24h)",
  },
  jwksCooldown: {
    flag: "jwks-cooldown",
    env: "TOOLSHED_JWKS_COOLDOWN",
    kind: "amount",
    help: "fetch the JWKS at most once this often (default 30s)",
  },
  jwksTimeout: {
    flag: "jwks-timeout",
    env: "TOOLSHED_JWKS_TIMEOUT",
    kind: "amount",
    help: "wait this long for the JWKS (default 5s)",
  },
  jwksMaxBytes: {
    flag: "jwks-max-bytes",
    env: "TOOLSHED_JWKS_MAX_BYTES",
    kind: "amount",
    help: "largest JWKS response (default 256k)",
  },
  clockTolerance: {
    flag: "clock-tolerance",
    env: "TOOLSHED_CLOCK_TOLERANCE",
    kind: "amount",
    help: "clock difference allowed on token exp and nbf (default 5s)",
  },
  introspectionUrl: {
    flag: "introspection-url",
    env: "TOOLSHED_INTROSPECTION_URL",
    kind: "string",
    help: "check opaque tokens at this RFC 7662 endpoint",
  },
  introspectionClientId: {
    flag: "introspection-client-id",
    env: "TOOLSHED_INTROSPECTION_CLIENT_ID",
    kind: "string",
    help: "this server's client id there (secret: TOOLSHED_INTROSPECTION_CLIENT_SECRET)",
  },
  introspectionClientSecretFile: {
    flag: "introspection-client-secret-file",
    env: "TOOLSHED_INTROSPECTION_CLIENT_SECRET_FILE",
    kind: "string",
    help: "or a file holding the client secret",
  },
  introspectionIssuer: {
    flag: "introspection-issuer",
    env: "TOOLSHED_INTROSPECTION_ISSUER",
    kind: "string",
    help: "required iss of introspected tokens",
  },
  introspectionAudience: {
    flag: "introspection-audience",
    env: "TOOLSHED_INTROSPECTION_AUDIENCE",
    kind: "string",
    help: "required aud of introspected tokens",
  },
  corsOrigins: {
    flag: "cors-origins",
    env: "TOOLSHED_CORS_ORIGINS",
    kind: "list",
    help: "browser pages allowed to call (CORS), as https://app.example",
  },
  allowedHosts: {
    flag: "allowed-hosts",
    env: "TOOLSHED_ALLOWED_HOSTS",
    kind: "list",
    help: "Host headers accepted (default loopback names; * any)",
  },
  allowedOrigins: {
    flag: "allowed-origins",
    env: "TOOLSHED_ALLOWED_ORIGINS",
    kind: "list",
    help: "browser Origins accepted (default: the allowed hosts; * any)",
  },
  publicUrl: {
    flag: "public-url",
    env: "TOOLSHED_PUBLIC_URL",
    kind: "string",
    help: "base URL clients use, when behind a proxy",
  },
  maxBody: { flag: "max-body", env: "TOOLSHED_MAX_BODY", kind: "amount", help: "largest request body (default 1m)" },
  maxResult: {
    flag: "max-result",
    env: "TOOLSHED_MAX_RESULT",
    kind: "amount",
    help: "largest tool result; larger is a too_large tool error (default 4m)",
  },
  maxBatchAnswer: {
    flag: "max-batch-answer",
    env: "TOOLSHED_MAX_BATCH_ANSWER",
    kind: "amount",
    help: "largest answer to one batch; calls past it get too_large (default 16m)",
  },
  writeTimeout: {
    flag: "write-timeout",
    env: "TOOLSHED_WRITE_TIMEOUT",
    kind: "amount",
    help: "close a connection whose client leaves its answer unread this long (default 30s)",
  },
  rateLimit: {
    flag: "rate-limit",
    env: "TOOLSHED_RATE_LIMIT",
    kind: "count",
    help: "requests per minute per token or address (default 600; 0 off)",
  },
  requestTimeout: {
    flag: "request-timeout",
    env: "TOOLSHED_REQUEST_TIMEOUT",
    kind: "amount",
    help: "time to receive a whole request (default 30s)",
  },
  shutdownTimeout: {
    flag: "shutdown-timeout",
    env: "TOOLSHED_SHUTDOWN_TIMEOUT",
    kind: "amount",
    help: "wait this long for running calls on SIGTERM (default 10s)",
  },
  metrics: {
    flag: "metrics",
    env: "TOOLSHED_METRICS",
    kind: "boolean",
    help: "serve Prometheus metrics at GET /metrics",
  },
  metricsPort: {
    flag: "metrics-port",
    env: "TOOLSHED_METRICS_PORT",
    kind: "count",
    help: "serve /metrics on this port instead (implies --metrics)",
  },
} as const satisfies Record<string, { flag: string; env: string; kind: SettingKind; help: string }>;

export type ServerSettingName = keyof typeof SERVER_SETTINGS;

/** Settings that name a file: relative to the config file's folder. */
const PATH_SETTINGS = new Set<string>(["db", "tokensFile", "introspectionClientSecretFile"]);

/** One problem of a config file: where (a JSON path) and what would work. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** A config file that cannot be served: every problem found, each with its JSON path. */
export class ConfigFileError extends PackConfigError {
  readonly file: string;
  readonly problems: readonly ConfigProblem[];
  constructor(file: string, problems: readonly ConfigProblem[]) {
    const lines = problems.map((p) => `  ${p.path === "" ? "(file)" : p.path}: ${p.message}`);
    super(`${file} has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}:\n${lines.join("\n")}`);
    this.file = file;
    this.problems = problems;
  }
}

/** A config file, read and checked: its packs (options checked) and its settings. */
export interface LoadedConfig {
  /** The file, as an absolute path. */
  file: string;
  /** The packs it names, in its order; undefined when it names none (the built-in three are served). */
  packs?: PackEntry[];
  /** Where each pack came from (a package's file or the built-in copy), by its key. */
  sources: Record<string, string>;
  /** Its settings, as the environment variables the flags fall back to (a flag or variable wins). */
  env: Record<string, string>;
  /** The settings it gave, by name. */
  settings: ServerSettingName[];
  /** The JSON paths whose values came from `${VAR}` (never printed: they may be secrets). */
  fromEnv: string[];
}

const BUILT_IN_PACKAGES: Record<string, keyof typeof BUILT_IN_PACKS> = {
  "@toolshed/notes": "notes",
  "@toolshed/tickets": "tickets",
  "@toolshed/crm": "crm",
};

const bound = (what: string) => z.number().optional().describe(`${what}; narrower than the tool's own`);
const argumentChangeSchema = z.object({
  description: z.string().min(1).optional().describe("What the model reads about the argument instead"),
  value: z
    .unknown()
    .optional()
    .describe("A value it always has: it leaves the published schema and a call that sends it is refused"),
  minimum: bound("Smallest number"),
  maximum: bound("Largest number"),
  minLength: bound("Fewest characters"),
  maxLength: bound("Most characters"),
  minItems: bound("Fewest items"),
  maxItems: bound("Most items"),
});
const toolChangeSchema = z.object({
  hide: z.boolean().optional().describe("Leave the tool out: it is in no list, hint or metric"),
  name: z.string().min(1).optional().describe("Its new name (before the pack's prefix)"),
  title: z.string().min(1).optional().describe("Its new title"),
  description: z.string().min(1).optional().describe("What the model reads about the tool instead"),
  arguments: z
    .record(z.string(), argumentChangeSchema)
    .optional()
    .describe("Changes to its top-level arguments, by name"),
});
const packEntrySchema = z.object({
  options: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("The pack's options, as its descriptor's JSON Schema says (optionsJsonSchema)"),
  database: z.string().min(1).optional().describe(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the file's syntax
    "A database of its own: a SQLite file (relative to this file's folder) or a PostgreSQL URL (postgres://…; ${VAR} keeps the password out). Default: the server's database, shared by the other packs",
  ),
  databaseSchema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/)
    .optional()
    .describe("With a PostgreSQL database: the schema its tables go in (created when missing)"),
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .optional()
    .describe("Put before every tool's name, such as kb_ (get_note becomes kb_get_note)"),
  scopes: z
    .array(z.string())
    .optional()
    .describe("OAuth scopes a caller's token needs for everything in the pack, on top of its own"),
  tools: z
    .record(z.string(), toolChangeSchema)
    .optional()
    .describe(
      "Tools to hide, rename or re-describe, with arguments to re-describe, fix or narrow; by their names in the pack",
    ),
});

function settingSchema(kind: SettingKind, help: string): z.ZodType {
  switch (kind) {
    case "boolean":
      return z.boolean().optional().describe(help);
    case "count":
      return z
        .union([z.number().int().min(0), z.string()])
        .optional()
        .describe(help);
    case "amount":
      return z
        .union([z.number().min(0), z.string()])
        .optional()
        .describe(`${help}; a number is seconds or bytes`);
    case "list":
      return z
        .union([z.array(z.string()), z.string()])
        .optional()
        .describe(help);
    default:
      return z.string().optional().describe(help);
  }
}

/** The shape of toolshed.config.json (its JSON Schema is published next to the package). */
export const configFileSchema = z
  .object({
    $schema: z.string().optional().describe("The JSON Schema of this file, for editors"),
    packs: z
      .record(z.string(), packEntrySchema)
      .optional()
      .describe(
        `The packs to serve, in order: each key is an npm package name (resolved from this file's folder, such as @toolshed/notes) or a path starting with ./ or ../ to a pack's folder or file; the value holds its options. Without packs, the built-in ${PACK_NAMES.join(", ")} are served`,
      ),
    server: z
      .object(
        Object.fromEntries(
          Object.entries(SERVER_SETTINGS).map(([name, spec]) => [name, settingSchema(spec.kind, spec.help)]),
        ),
      )
      .optional()
      .describe(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the file's syntax
        "Server settings, as the flags of toolshed-http and toolshed-stdio (a flag or TOOLSHED_* variable wins); ${VAR} takes a value from the environment",
      ),
  })
  .describe("Toolshed server config: the packs to serve and the server's settings");

/** The JSON Schema of toolshed.config.json. */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configFileSchema, { io: "output", target: "draft-2020-12" }) as Record<string, unknown>;
  return { $id: "https://toolshed.dev/schemas/toolshed.config.schema.json", title: "toolshed.config.json", ...schema };
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads a config file, expands `${VAR}` (and `${VAR:-default}`) from `env`, checks it, loads each
 * pack's descriptor and checks its options. Throws a ConfigFileError listing every problem with
 * its JSON path and what would work; nothing is opened or started.
 */
export async function loadConfigFile(path: string, env: Env = process.env): Promise<LoadedConfig> {
  const file = resolvePath(path);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "does not exist" : code === "EISDIR" ? "is a folder" : `cannot be read (${code})`;
    throw new ConfigFileError(file, [
      { path: "", message: `${why}; give --config the path of a JSON file such as ./${CONFIG_FILE_NAME}` },
    ]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(file, [{ path: "", message: `is not JSON: ${(error as Error).message}` }]);
  }
  const problems: ConfigProblem[] = [];
  const fromEnv = new Set<string>();
  const expanded = expandEnv(raw, [], env, problems, fromEnv);
  const parsed = parseArguments(configFileSchema, expanded);
  let config: z.output<typeof configFileSchema>;
  if (parsed.success) config = parsed.data as z.output<typeof configFileSchema>;
  else {
    const keys = Object.keys(packsPart(expanded) ?? {}).sort((a, b) => b.length - a.length);
    for (const issue of parsed.issues) {
      problems.push({ path: withPackKey(issue.path, keys), message: inFileTerms(issue.message) });
    }
    // The packs are still loaded and checked when their part is sound, so every problem is listed at once.
    const packs = packsPart(expanded);
    if (packs === undefined) throw new ConfigFileError(file, problems);
    config = { packs };
  }
  const folder = dirname(file);
  const sources: Record<string, string> = {};
  let packs: PackEntry[] | undefined;
  if (config.packs !== undefined) {
    packs = [];
    const served = new Map<string, string>();
    for (const [key, entry] of Object.entries(config.packs)) {
      const at = `packs${jsonKey(key)}`;
      let loaded: { descriptor: AnyPackDescriptor; source: string };
      try {
        loaded = await loadPack(key, folder);
      } catch (error) {
        problems.push({ path: at, message: (error as Error).message });
        continue;
      }
      const name = loaded.descriptor.name;
      const first = served.get(name);
      if (first !== undefined) {
        problems.push({ path: at, message: `is also the pack "${name}" (as ${first}); serve each pack once` });
        continue;
      }
      served.set(name, at);
      try {
        const options = checkedOptions({ name, descriptor: loaded.descriptor, options: entry.options ?? {} });
        const change = changeOf(entry);
        const database = databaseOf(entry, folder);
        if (typeof database === "string") {
          problems.push({ path: `${at}.databaseSchema`, message: database });
          continue;
        }
        const packEntry: PackEntry = {
          name,
          descriptor: loaded.descriptor,
          options,
          ...(change ? { change } : {}),
          ...(database ? { database } : {}),
        };
        const reshapeProblem = change ? await checkChange(packEntry) : undefined;
        if (reshapeProblem !== undefined) {
          problems.push({ path: `${at}${reshapeProblem.path}`, message: reshapeProblem.message });
          continue;
        }
        packs.push(packEntry);
        sources[key] = loaded.source;
      } catch (error) {
        if (!(error instanceof PackOptionsError)) {
          problems.push({ path: at, message: (error as Error)?.message ?? String(error) });
          continue;
        }
        for (const problem of error.problems) {
          problems.push({
            path: `${at}.options${problem.path === "" ? "" : `.${problem.path}`}`,
            message: problem.message,
          });
        }
      }
    }
    if (Object.keys(config.packs).length === 0) {
      problems.push({
        path: "packs",
        message: `names no pack; add one such as "@toolshed/notes": {}, or leave packs out to serve ${PACK_NAMES.join(", ")}`,
      });
    }
  }
  if (problems.length > 0) throw new ConfigFileError(file, problems);
  const settingsEnv: Record<string, string> = {};
  const settings: ServerSettingName[] = [];
  for (const [name, value] of Object.entries(config.server ?? {})) {
    if (value === undefined) continue;
    const spec = SERVER_SETTINGS[name as ServerSettingName];
    settings.push(name as ServerSettingName);
    let text = Array.isArray(value) ? value.join(",") : String(value);
    // A file's paths are relative to its folder, wherever the server is started from.
    if (PATH_SETTINGS.has(name) && text !== ":memory:" && !text.startsWith("~") && !isAbsolute(text)) {
      text = resolvePath(folder, text);
    }
    settingsEnv[spec.env] = text;
  }
  return {
    file,
    ...(packs === undefined ? {} : { packs }),
    sources,
    env: settingsEnv,
    settings,
    fromEnv: [...fromEnv],
  };
}

type EntryConfig = z.output<typeof packEntrySchema>;

/** An entry's own database, undefined for the shared one, or a problem. */
function databaseOf(entry: EntryConfig, folder: string): PackDatabase | string | undefined {
  const value = entry.database;
  if (value === undefined) {
    return entry.databaseSchema === undefined ? undefined : "needs a PostgreSQL database in database";
  }
  if (/^postgres(ql)?:\/\//i.test(value)) {
    return {
      databaseUrl: value,
      ...(entry.databaseSchema === undefined ? {} : { databaseSchema: entry.databaseSchema }),
    };
  }
  if (entry.databaseSchema !== undefined) return "applies to a PostgreSQL database; SQLite has no schemas";
  return { db: value === ":memory:" || isAbsolute(value) ? value : resolvePath(folder, value) };
}

/** The reshaping an entry asks for, or undefined when it asks for none. */
function changeOf(entry: EntryConfig): PackChange | undefined {
  if (entry.prefix === undefined && entry.scopes === undefined && entry.tools === undefined) return undefined;
  return {
    ...(entry.prefix === undefined ? {} : { prefix: entry.prefix }),
    ...(entry.scopes === undefined ? {} : { scopes: entry.scopes }),
    ...(entry.tools === undefined ? {} : { tools: entry.tools as PackChange["tools"] }),
  };
}

/**
 * Builds the pack once on an in-memory database (or with no store) and reshapes it, so a change
 * naming no tool or widening a bound is found before anything starts. A pack kept only on
 * PostgreSQL is checked when it is opened.
 */
async function checkChange(entry: PackEntry): Promise<ConfigProblem | undefined> {
  const stores = entry.descriptor.stores;
  if (stores !== undefined && stores.sqlite === undefined) return undefined;
  const kind = stores?.sqlite === undefined ? undefined : await stores.sqlite();
  const store = kind === undefined ? undefined : await kind.open(":memory:", { readonly: false });
  try {
    buildPack(entry, store);
    return undefined;
  } catch (error) {
    const text = (error as Error).message.replace(/^pack "[^"]*": /, "");
    // "tools.get_notes names no tool…", "tools.x.arguments.limit.maximum 100 would widen…": the path leads.
    const lead = /^(tools\.\S+) (.*)$/s.exec(text);
    return lead ? { path: `.${lead[1]}`, message: lead[2] ?? text } : { path: "", message: text };
  } finally {
    await store?.close();
  }
}

/** The file's packs when they are a record of objects, else undefined. */
function packsPart(value: unknown): Record<string, EntryConfig> | undefined {
  const packs = (value as { packs?: unknown } | null)?.packs;
  if (typeof packs !== "object" || packs === null || Array.isArray(packs)) return undefined;
  const out: Record<string, EntryConfig> = {};
  for (const [key, entry] of Object.entries(packs)) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) continue;
    // An entry that is sound keeps its transforms; one that is not is checked by its options alone.
    const sound = packEntrySchema.safeParse(entry);
    const options = (entry as { options?: unknown }).options;
    const kept: EntryConfig = sound.success
      ? sound.data
      : typeof options === "object" && options !== null && !Array.isArray(options)
        ? { options: options as Record<string, unknown> }
        : {};
    Object.defineProperty(out, key, { value: kept, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The config file to read: --config's, else ./toolshed.config.json when it exists, else none. */
export async function findConfigFile(
  given: string | undefined,
  cwd: string = process.cwd(),
): Promise<string | undefined> {
  if (given !== undefined) return resolvePath(cwd, given);
  const candidate = join(cwd, CONFIG_FILE_NAME);
  try {
    return (await stat(candidate)).isFile() ? candidate : undefined;
  } catch {
    return undefined;
  }
}

// Zod's hints speak of a tool's arguments; here they are a file's keys and settings.
function inFileTerms(message: string): string {
  return message.replace(/\barguments?\b/g, (word) => (word.endsWith("s") ? "keys" : "key"));
}

/** A hint's path with the pack's key written as the file's other paths write it (`packs["@toolshed/crm"]`). */
function withPackKey(path: string, keys: readonly string[]): string {
  for (const key of keys) {
    const head = `packs.${key}`;
    if (path === head || path.startsWith(`${head}.`) || path.startsWith(`${head}[`)) {
      return `packs${jsonKey(key)}${path.slice(head.length)}`;
    }
  }
  return path;
}

function jsonKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Every string with `${VAR}` references filled in from env; a variable that is not set is a problem. */
function expandEnv(
  value: unknown,
  path: string[],
  env: Env,
  problems: ConfigProblem[],
  expanded?: Set<string>,
): unknown {
  if (typeof value === "string") {
    if (!value.includes("${")) return value;
    expanded?.add(path.join(""));
    return value.replace(ENV_REF, (whole, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== "") return found;
      if (fallback !== undefined) return fallback;
      problems.push({
        path: path.join(""),
        message: `\${${name}} is not set in the environment; set ${name}, or write \${${name}:-default} to give a default`,
      });
      return whole;
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, i) => expandEnv(item, [...path, `[${i}]`], env, problems, expanded));
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: expandEnv(item, [...path, path.length === 0 ? key : jsonKey(key)], env, problems, expanded),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** A pack's descriptor from an npm package name (resolved from `folder`) or a relative path. */
async function loadPack(key: string, folder: string): Promise<{ descriptor: AnyPackDescriptor; source: string }> {
  const isPath = key.startsWith("./") || key.startsWith("../") || isAbsolute(key);
  let url: string;
  if (isPath) {
    url = await resolvePathEntry(resolvePath(folder, key));
  } else {
    const { resolve } = await import("import-meta-resolve");
    try {
      url = resolve(key, pathToFileURL(join(folder, "toolshed.config.json")).href);
    } catch (error) {
      const builtIn = BUILT_IN_PACKAGES[key];
      if (builtIn !== undefined) return { descriptor: BUILT_IN_PACKS[builtIn], source: "built in" };
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ERR_MODULE_NOT_FOUND") {
        throw new Error(
          `no package "${key}" is installed in ${folder} or above; install it (npm install ${key}) or give a path starting with ./`,
        );
      }
      if (code === "ERR_INVALID_MODULE_SPECIFIER") {
        throw new Error(`"${key}" is neither an npm package name nor a path; write a path as ./${key}`);
      }
      throw new Error(`cannot resolve "${key}": ${(error as Error).message}`);
    }
  }
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`failed to load (${url}): ${(error as Error).message}`);
  }
  const descriptor = loaded.toolshedPack ?? (loaded.default as Record<string, unknown> | undefined)?.toolshedPack;
  if (!isPackDescriptor(descriptor)) {
    throw new Error(
      `is not a Toolshed pack: it exports no toolshedPack (a pack descriptor from definePackDescriptor of @toolshed/schema); packs made with create-toolshed-pack export one`,
    );
  }
  return { descriptor, source: url };
}

/** A path's module: a file as it is, a folder by its package.json (its exports or main) or index.js. */
async function resolvePathEntry(target: string): Promise<string> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(target);
  } catch {
    throw new Error(`${target} does not exist; give the path of a pack's folder or its built entry file`);
  }
  if (info.isFile()) return pathToFileURL(target).href;
  let manifest: { name?: string; main?: string; exports?: unknown } | undefined;
  try {
    manifest = JSON.parse(await readFile(join(target, "package.json"), "utf8"));
  } catch {
    manifest = undefined;
  }
  if (manifest?.name !== undefined && manifest.exports !== undefined) {
    // The package imports itself by name from inside its folder, as its users would.
    const { resolve } = await import("import-meta-resolve");
    try {
      return resolve(manifest.name, pathToFileURL(join(target, "package.json")).href);
    } catch (error) {
      throw new Error(
        `the package in ${target} has no entry to import (${(error as Error).message}); build it first (npm run build)`,
      );
    }
  }
  const main = join(target, manifest?.main ?? "index.js");
  try {
    await stat(main);
  } catch {
    throw new Error(`${main} does not exist; build the pack first (npm run build)`);
  }
  return pathToFileURL(main).href;
}

/**
 * A server bin's config file: `--config FILE`, else `TOOLSHED_CONFIG`, else `./toolshed.config.json`
 * when it exists; read and checked (ConfigFileError), or undefined when there is none or the bin
 * was asked only for `--help` or `--version`.
 */
export async function readServerConfig(
  argv: readonly string[],
  env: Env = process.env,
  cwd: string = process.cwd(),
): Promise<LoadedConfig | undefined> {
  if (argv.some((arg) => arg === "--help" || arg === "-h" || arg === "--version")) return undefined;
  const file = await findConfigFile(configFlagOf(argv) ?? (env.TOOLSHED_CONFIG?.trim() || undefined), cwd);
  return file === undefined ? undefined : await loadConfigFile(file, env);
}

/** The value of `--config FILE` (or `--config=FILE`) among a server's arguments. */
export function configFlagOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") return undefined;
    if (arg === "--config") return argv[i + 1];
    if (arg.startsWith("--config=")) return arg.slice("--config=".length);
  }
  return undefined;
}

/**
 * What a server would serve from a config file (`--check-config`): the file, each pack with its
 * version, where it was loaded from and its tools (listed on an in-memory database), and the
 * settings the file gave.
 */
export async function describeConfig(
  loaded: LoadedConfig | undefined,
  packs: readonly (PackName | PackEntry)[],
): Promise<string> {
  const lines: string[] = [
    loaded === undefined ? "no config file: flags and TOOLSHED_* variables only" : `config file ${loaded.file}: OK`,
  ];
  const entries: PackEntry[] = packs.map((choice) =>
    typeof choice === "string" ? { name: choice, descriptor: BUILT_IN_PACKS[choice], options: {} } : choice,
  );
  const keyOf = (entry: PackEntry) => {
    const i = loaded?.packs?.indexOf(entry) ?? -1;
    return i < 0 ? undefined : Object.keys(loaded?.sources ?? {})[i];
  };
  const sourceOf = (entry: PackEntry) => {
    const key = keyOf(entry);
    if (key !== undefined) return `${key} (${loaded?.sources[key]})`;
    return `@toolshed/${entry.name} (built in)`;
  };
  // Options from ${VAR} may be secrets: their values are not printed.
  const shown = (entry: PackEntry) => {
    const key = keyOf(entry);
    const base = key === undefined ? undefined : `packs${jsonKey(key)}.options`;
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(entry.options ?? {})) {
      const at = `${base}${jsonKey(name)}`;
      const secret =
        base !== undefined &&
        (loaded?.fromEnv ?? []).some((p) => p === at || p.startsWith(`${at}.`) || p.startsWith(`${at}[`));
      out[name] = secret ? "(from the environment)" : value;
    }
    return out;
  };
  lines.push(`packs (${entries.length}):`);
  for (const entry of entries) {
    const tools = await toolNamesOf(entry);
    lines.push(`  ${entry.name} ${entry.descriptor.version}: ${entry.descriptor.description}`);
    lines.push(`    from ${sourceOf(entry)}`);
    if (Object.keys(entry.options ?? {}).length > 0) lines.push(`    options ${JSON.stringify(shown(entry))}`);
    if (entry.database !== undefined) {
      const { db, databaseUrl, databaseSchema } = entry.database;
      const where =
        databaseUrl === undefined
          ? db
          : `${redactDatabaseUrl(databaseUrl)}${databaseSchema ? ` schema ${databaseSchema}` : ""}`;
      lines.push(`    database ${where} (its own)`);
    }
    lines.push(`    tools: ${tools}`);
  }
  if (loaded !== undefined && loaded.settings.length > 0) {
    lines.push(`settings from the file (a flag or TOOLSHED_* variable wins): ${loaded.settings.join(", ")}`);
  }
  return `${lines.join("\n")}\n`;
}

async function toolNamesOf(entry: PackEntry): Promise<string> {
  const stores = entry.descriptor.stores;
  if (stores !== undefined && stores.sqlite === undefined)
    return "(listed once served: the pack keeps its data on PostgreSQL only)";
  const { openPacks } = await import("./open-packs.js");
  let opened: Awaited<ReturnType<typeof openPacks>> | undefined;
  try {
    // On an in-memory database: checking the file never touches the pack's own.
    const { database: _own, ...inMemory } = entry;
    opened = await openPacks({ db: ":memory:", packs: [inMemory] });
    const names = opened.packs.flatMap((pack) => pack.tools.map((tool) => tool.name));
    return names.length === 0 ? "none" : names.join(", ");
  } catch (error) {
    return `(could not be listed: ${(error as Error).message})`;
  } finally {
    await opened?.close();
  }
}
