import { HttpConfigError } from "@toolshed/http";
import { describe, expect, it } from "vitest";
import { parseHttpArgs, usageText } from "./args.js";

const parse = (argv: string[], env: Record<string, string> = {}) => parseHttpArgs(argv, env, { homeDir: "/home/u" });

describe("parseHttpArgs", () => {
  it("has secure defaults: loopback, port 3000, 1 MiB bodies, 600 requests a minute", () => {
    expect(parse([])).toEqual({
      command: "serve",
      host: "127.0.0.1",
      port: 3000,
      db: "/home/u/.toolshed/toolshed.db",
      packs: ["notes", "tickets", "crm"],
      packsGiven: false,
      readOnly: false,
      strictArguments: false,
      demo: false,
      sessions: false,
      sessionIdleTimeoutMs: 1_800_000,
      sessionsPerClient: 100,
      listensPerClient: 16,
      logLevel: "info",
      maxBodyBytes: 1_048_576,
      maxResultBytes: 4_194_304,
      maxBatchBytes: 16_777_216,
      writeTimeoutMs: 30_000,
      rateLimit: 600,
      requestTimeoutMs: 30_000,
      shutdownTimeoutMs: 10_000,
      metrics: false,
      openTelemetry: false,
    });
  });

  it("reads the answer-size caps and the write timeout, from flags or TOOLSHED_* variables", () => {
    expect(parse(["--max-result=1m", "--max-batch-answer=8m", "--write-timeout=5s"])).toMatchObject({
      maxResultBytes: 1_048_576,
      maxBatchBytes: 8_388_608,
      writeTimeoutMs: 5_000,
    });
    expect(
      parse([], { TOOLSHED_MAX_RESULT: "512k", TOOLSHED_MAX_BATCH_ANSWER: "2m", TOOLSHED_WRITE_TIMEOUT: "500ms" }),
    ).toMatchObject({ maxResultBytes: 524_288, maxBatchBytes: 2_097_152, writeTimeoutMs: 500 });
    expect(() => parse(["--max-result=0"])).toThrow(HttpConfigError);
  });

  it("reads every flag, and a flag wins over its TOOLSHED_* variable", () => {
    const config = parse(
      [
        "--host=0.0.0.0",
        "--port=0",
        "--db=~/x.db",
        "--packs=crm",
        "--read-only",
        "--sessions",
        "--session-idle-timeout=90s",
        "--sessions-per-client=7",
        "--listens-per-client=2",
        "--log-level=DEBUG",
        "--tokens-file=/etc/tokens",
        "--jwks-url=https://auth.example/jwks.json",
        "--jwt-issuer=https://auth.example",
        "--jwt-audience=toolshed",
        "--introspection-url=https://auth.example/oauth2/introspect",
        "--introspection-client-id=toolshed-rs",
        "--introspection-issuer=https://auth.example",
        "--introspection-audience=https://mcp.example.com/mcp",
        "--cors-origins=https://app.example.com, http://localhost:5173",
        "--allowed-hosts=mcp.example.com, mcp.internal:8080",
        "--allowed-origins=https://app.example.com",
        "--public-url=https://mcp.example.com",
        "--max-body=512k",
        "--rate-limit=0",
        "--request-timeout=500ms",
        "--shutdown-timeout=0",
        "--strict-arguments",
      ],
      {
        TOOLSHED_PORT: "9",
        TOOLSHED_PACKS: "notes",
        TOOLSHED_TOKENS: "abcdefghijklmnop:tools:read",
        TOOLSHED_INTROSPECTION_CLIENT_SECRET: "s3cret",
        TOOLSHED_INTROSPECTION_URL: "https://ignored.example/introspect",
      },
    );
    expect(config).toMatchObject({
      host: "0.0.0.0",
      port: 0,
      db: "/home/u/x.db",
      packs: ["crm"],
      readOnly: true,
      strictArguments: true,
      sessions: true,
      sessionIdleTimeoutMs: 90_000,
      sessionsPerClient: 7,
      listensPerClient: 2,
      logLevel: "debug",
      tokensFile: "/etc/tokens",
      tokens: "abcdefghijklmnop:tools:read",
      jwksUrl: "https://auth.example/jwks.json",
      jwtIssuer: "https://auth.example",
      jwtAudience: "toolshed",
      introspectionUrl: "https://auth.example/oauth2/introspect",
      introspectionClientId: "toolshed-rs",
      introspectionClientSecret: "s3cret",
      introspectionIssuer: "https://auth.example",
      introspectionAudience: "https://mcp.example.com/mcp",
      corsOrigins: ["https://app.example.com", "http://localhost:5173"],
      allowedHosts: ["mcp.example.com", "mcp.internal:8080"],
      allowedOrigins: ["https://app.example.com"],
      publicUrl: "https://mcp.example.com",
      maxBodyBytes: 524_288,
      rateLimit: 0,
      requestTimeoutMs: 500,
      shutdownTimeoutMs: 0,
    });
  });

  it("falls back to TOOLSHED_* variables", () => {
    expect(
      parse([], {
        TOOLSHED_PORT: "8080",
        TOOLSHED_SESSIONS: "true",
        TOOLSHED_DEMO: "1",
        TOOLSHED_RATE_LIMIT: "60",
        TOOLSHED_SHUTDOWN_TIMEOUT: "2m",
      }),
    ).toMatchObject({ port: 8080, sessions: true, demo: true, rateLimit: 60, shutdownTimeoutMs: 120_000 });
  });

  it.each([
    [["--port", "70000"], '--port "70000" must be a whole number from 0 to 65535'],
    [["--rate-limit=-1"], '--rate-limit "-1" must be a whole number from 0 to 1000000'],
    [
      ["--request-timeout", "soon"],
      '--request-timeout "soon" is not a duration; write seconds (10) or a number with ms, s, m or h (500ms, 30m)',
    ],
    [
      ["--request-timeout", "0"],
      '--request-timeout "0" is not a duration; write seconds (10) or a number with ms, s, m or h (500ms, 30m)',
    ],
    [["--max-body", "0"], '--max-body "0" is not a size; write bytes (1048576) or 512k, 1m'],
    [["--jwt-issuer", "x"], "--jwt-issuer and --jwt-audience need --jwks-url, the key set tokens are checked with"],
    [
      ["--jwks-url", "ftp://x", "--jwt-issuer", "i", "--jwt-audience", "a"],
      '--jwks-url "ftp://x" is not an http(s) URL, such as https://auth.example.com/jwks.json',
    ],
    [["--sessions=yes"], "--sessions takes no value; pass --sessions alone to turn it on"],
    [["serve"], 'unexpected argument "serve"; values follow their flag, as in --port serve'],
    [
      ["--host", "10.0.0.5"],
      "refusing to serve 10.0.0.5 without authentication; add --tokens-file PATH (or TOOLSHED_TOKENS), --jwks-url URL or --introspection-url URL, or bind to 127.0.0.1",
    ],
    [
      ["--cors-origins", " , "],
      "--cors-origins needs at least one origin, as in --cors-origins https://app.example.com",
    ],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parse(argv)).toThrow(new HttpConfigError(message));
  });
});

describe("token introspection flags", () => {
  const URL_FLAG = ["--introspection-url", "https://auth.example/introspect"];
  const SECRET = { TOOLSHED_INTROSPECTION_CLIENT_SECRET: "s3cret" };

  it("read from TOOLSHED_* variables, the secret from TOOLSHED_INTROSPECTION_CLIENT_SECRET or a file", () => {
    expect(
      parse([], {
        TOOLSHED_INTROSPECTION_URL: "https://auth.example/introspect",
        TOOLSHED_INTROSPECTION_CLIENT_ID: "rs",
        TOOLSHED_INTROSPECTION_CLIENT_SECRET_FILE: "/run/secrets/introspection",
        TOOLSHED_INTROSPECTION_ISSUER: "https://auth.example",
        TOOLSHED_INTROSPECTION_AUDIENCE: "toolshed",
        TOOLSHED_CORS_ORIGINS: "https://app.example",
      }),
    ).toMatchObject({
      introspectionUrl: "https://auth.example/introspect",
      introspectionClientId: "rs",
      introspectionClientSecretFile: "/run/secrets/introspection",
      introspectionIssuer: "https://auth.example",
      introspectionAudience: "toolshed",
      corsOrigins: ["https://app.example"],
    });
  });

  it("count as authentication for a non-loopback address", () => {
    const config = parse(["--host", "0.0.0.0", ...URL_FLAG, "--introspection-client-id", "rs"], SECRET);
    expect(config).toMatchObject({ host: "0.0.0.0", introspectionClientSecret: "s3cret" });
  });

  it.each([
    [
      [...URL_FLAG],
      SECRET,
      "--introspection-url needs --introspection-client-id and TOOLSHED_INTROSPECTION_CLIENT_SECRET (or --introspection-client-secret-file PATH): this server's credentials at the authorization server",
    ],
    [
      [...URL_FLAG, "--introspection-client-id", "rs"],
      {},
      "--introspection-url needs --introspection-client-id and TOOLSHED_INTROSPECTION_CLIENT_SECRET (or --introspection-client-secret-file PATH): this server's credentials at the authorization server",
    ],
    [
      [...URL_FLAG, "--introspection-client-id", "rs", "--introspection-client-secret-file", "/s"],
      SECRET,
      "give the introspection client secret once: TOOLSHED_INTROSPECTION_CLIENT_SECRET or --introspection-client-secret-file, not both",
    ],
    [
      ["--introspection-url", "auth.example/introspect", "--introspection-client-id", "rs"],
      SECRET,
      '--introspection-url "auth.example/introspect" is not an http(s) URL, such as https://auth.example.com/oauth2/introspect',
    ],
    [
      ["--introspection-client-id", "rs", "--introspection-issuer", "https://auth.example"],
      {},
      "--introspection-client-id and --introspection-issuer need --introspection-url, the endpoint tokens are checked at",
    ],
    [[], SECRET, "TOOLSHED_INTROSPECTION_CLIENT_SECRET needs --introspection-url, the endpoint tokens are checked at"],
  ])("%j (with %j) is a usage error", (argv, env, message) => {
    expect(() => parse(argv, env)).toThrow(new HttpConfigError(message));
  });

  it("the secret is never a flag, whose value ps would show", () => {
    for (const argv of [["--introspection-client-secret", "s3cret"], ["--introspection-client-secret=s3cret"]]) {
      expect(() => parse(argv)).toThrow(
        new HttpConfigError(
          "--introspection-client-secret is not a flag, so that the secret never shows in ps; set TOOLSHED_INTROSPECTION_CLIENT_SECRET (or --introspection-client-secret-file PATH)",
        ),
      );
    }
  });
});

describe("parseHttpArgs, stores", () => {
  it("PostgreSQL and Redis come from flags or TOOLSHED_* variables", () => {
    expect(
      parse(["--database-url", "postgres://u:p@db:5432/t", "--database-schema", "toolshed"], {
        TOOLSHED_REDIS_URL: "redis://cache:6379",
        TOOLSHED_REDIS_PREFIX: "app1:rl",
      }),
    ).toMatchObject({
      databaseUrl: "postgres://u:p@db:5432/t",
      databaseSchema: "toolshed",
      redisUrl: "redis://cache:6379",
      redisPrefix: "app1:rl",
    });
    const fromEnv = parse([], { TOOLSHED_DATABASE_URL: "postgresql://db/t", TOOLSHED_REDIS_URL: "rediss://c" });
    expect(fromEnv).toMatchObject({ databaseUrl: "postgresql://db/t", redisUrl: "rediss://c" });
    expect(parse([])).not.toHaveProperty("databaseUrl");
  });

  it.each([
    [
      ["--database-url", "mysql://u:secret@db/t"],
      "--database-url is a mysql URL; use postgres://USER:PASSWORD@HOST:5432/DATABASE",
    ],
    [["--database-url", "db:5432"], "--database-url is a db URL; use postgres://USER:PASSWORD@HOST:5432/DATABASE"],
    [["--database-url", "not a url"], "--database-url is not a URL; use postgres://USER:PASSWORD@HOST:5432/DATABASE"],
    [["--database-schema", "toolshed"], "--database-schema needs --database-url; SQLite has no schemas"],
    [
      ["--database-url", "postgres://db/t", "--database-schema", "Tool-shed"],
      '--database-schema "Tool-shed" is not a plain PostgreSQL name; use lower-case letters, digits and _, such as toolshed',
    ],
    [["--redis-url", "http://cache:6379"], "--redis-url is a http URL; use redis://HOST:6379"],
    [["--redis-prefix", "x"], "--redis-prefix needs --redis-url"],
  ])("%j is refused with a hint, never echoing a password", (argv, message) => {
    expect(() => parse(argv)).toThrow(new HttpConfigError(message));
  });

  it("an unknown flag lists the flags; a misspelt one gets the one it was meant to be", () => {
    const unknown = (argv: string[]) => {
      try {
        parse(argv);
      } catch (error) {
        expect(error).toBeInstanceOf(HttpConfigError);
        return (error as Error).message;
      }
      throw new Error("expected a usage error");
    };
    expect(unknown(["--nope"])).toMatch(/^unknown option --nope; the flags are --host, --port, --db, /);
    expect(unknown(["--sesions"])).toBe("unknown option --sesions; did you mean --sessions?");
    expect(unknown(["--prot", "8080"])).toBe("unknown option --prot; did you mean --port?");
    expect(unknown(["--rate-limt=5"])).toBe("unknown option --rate-limt; did you mean --rate-limit?");
    expect(unknown(["--tokens", "/etc/t"])).toBe("unknown option --tokens; did you mean --tokens-file?");
  });

  it("--sqlite-driver or TOOLSHED_SQLITE_DRIVER picks the SQLite driver; a flag wins; unset is auto", () => {
    expect(parse([])).not.toHaveProperty("sqliteDriver");
    expect(parse(["--sqlite-driver", "node"]).sqliteDriver).toBe("node");
    expect(parse([], { TOOLSHED_SQLITE_DRIVER: "better-sqlite3" }).sqliteDriver).toBe("better-sqlite3");
    expect(parse(["--sqlite-driver", "auto"], { TOOLSHED_SQLITE_DRIVER: "node" }).sqliteDriver).toBe("auto");
    expect(() => parse(["--sqlite-driver", "sqlite3"])).toThrow(
      new HttpConfigError(
        '--sqlite-driver: unknown SQLite driver "sqlite3"; choose auto, node, better-sqlite3 (auto: node:sqlite on Node 22.16 or later, else better-sqlite3)',
      ),
    );
  });

  it("--help and --version need no valid serving config", () => {
    expect(parse(["--help"]).command).toBe("help");
    expect(parse(["--version"]).command).toBe("version");
  });
});

describe("parseHttpArgs, metrics and OpenTelemetry", () => {
  const error = (argv: string[], env: Record<string, string> = {}) => {
    try {
      parse(argv, env);
    } catch (thrown) {
      expect(thrown).toBeInstanceOf(HttpConfigError);
      return (thrown as Error).message;
    }
    throw new Error("expected an HttpConfigError");
  };

  it("--metrics or TOOLSHED_METRICS serve /metrics; --metrics-port implies it", () => {
    expect(parse(["--metrics"]).metrics).toBe(true);
    expect(parse([], { TOOLSHED_METRICS: "1" }).metrics).toBe(true);
    expect(parse([], { TOOLSHED_METRICS_PORT: "9464" })).toMatchObject({ metrics: true, metricsPort: 9464 });
    expect(parse(["--metrics-port", "0"])).toMatchObject({ metrics: true, metricsPort: 0 });
    expect(parse([]).metricsPort).toBeUndefined();
    expect(error(["--port", "9464", "--metrics-port", "9464"])).toBe(
      "--metrics-port 9464 is also --port; give it another port, or drop it to serve /metrics on the main port",
    );
    expect(error(["--metrics-port", "x"])).toMatch(/^--metrics-port /);
  });

  it("OTEL_* variables ask for the SDK: an OTLP endpoint or exporter, unless OTEL_SDK_DISABLED=true", () => {
    const otel = (env: Record<string, string>) => parse([], env).openTelemetry;
    expect(otel({})).toBe(false);
    expect(otel({ OTEL_SERVICE_NAME: "notes" })).toBe(false);
    expect(otel({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" })).toBe(true);
    expect(otel({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://localhost:4318/v1/traces" })).toBe(true);
    expect(otel({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(otel({ OTEL_METRICS_EXPORTER: "prometheus" })).toBe(true);
    expect(otel({ OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" })).toBe(false);
    expect(
      otel({
        OTEL_TRACES_EXPORTER: "none",
        OTEL_METRICS_EXPORTER: "none",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
      }),
    ).toBe(false);
    expect(otel({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318", OTEL_SDK_DISABLED: "true" })).toBe(false);
  });

  it("OTEL_* values the SDK would ignore are refused with a hint", () => {
    expect(error([], { OTEL_TRACES_EXPORTER: "otlp,jaegr" })).toBe(
      'OTEL_TRACES_EXPORTER="otlp,jaegr" names no exporter; use otlp, zipkin, console, none',
    );
    expect(error([], { OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" })).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT="localhost:4318" is not an http(s) URL; use one such as http://localhost:4318',
    );
    expect(error([], { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "protobuf" })).toBe(
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="protobuf" is not an OTLP protocol; use http/protobuf, http/json, grpc',
    );
    expect(error([], { OTEL_TRACES_EXPORTER: "otlp", OTEL_LOG_LEVEL: "loud" })).toBe(
      'OTEL_LOG_LEVEL="loud" is not a level; use none, error, warn, info, debug, verbose, all',
    );
    // Not asked for: nothing is checked.
    expect(parse([], { OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "jaegr" }).openTelemetry).toBe(false);
    // toolshed-http has no protocol on stdout, so a console exporter is fine here.
    expect(parse([], { OTEL_TRACES_EXPORTER: "console" }).openTelemetry).toBe(true);
  });
});

describe("usageText", () => {
  it("lists the introspection and CORS flags, and no flag for the secret", () => {
    const text = usageText("1.2.3");
    for (const flag of [
      "--introspection-url URL",
      "--introspection-client-id ID",
      "--introspection-client-secret-file PATH",
      "--introspection-issuer ISSUER",
      "--introspection-audience AUDIENCE",
      "--cors-origins LIST",
      "[TOOLSHED_CORS_ORIGINS]",
    ]) {
      expect(text).toContain(flag);
    }
    expect(text).not.toMatch(/--introspection-client-secret /);
  });
});

describe("identity-provider limits", () => {
  const jwt = ["--jwks-url=https://auth.example/jwks.json", "--jwt-issuer=https://auth.example", "--jwt-audience=a"];

  it("reads the key-set limits and the clock tolerance; unset, the library's defaults apply", () => {
    const config = parse([
      ...jwt,
      "--jwks-max-stale=12h",
      "--jwks-cooldown=10s",
      "--jwks-timeout=2s",
      "--jwks-max-bytes=64k",
      "--clock-tolerance=0",
    ]);
    expect(config).toMatchObject({
      jwksMaxStaleMs: 43_200_000,
      jwksCooldownMs: 10_000,
      jwksTimeoutMs: 2_000,
      jwksMaxBytes: 65_536,
      clockToleranceSec: 0,
    });
    const env = { TOOLSHED_JWKS_MAX_STALE: "1h", TOOLSHED_CLOCK_TOLERANCE: "1500ms" };
    expect(parse(jwt, env)).toMatchObject({ jwksMaxStaleMs: 3_600_000, clockToleranceSec: 1.5 });
    const none = parse(jwt);
    for (const key of ["jwksMaxStaleMs", "jwksCooldownMs", "jwksTimeoutMs", "jwksMaxBytes", "clockToleranceSec"]) {
      expect(none).not.toHaveProperty(key);
    }
  });

  it.each([
    [["--jwks-max-stale", "1h"], "--jwks-max-stale needs --jwks-url, the key set it limits"],
    [
      ["--jwks-cooldown", "1s", "--jwks-timeout", "1s"],
      "--jwks-cooldown and --jwks-timeout need --jwks-url, the key set they limit",
    ],
    [
      ["--clock-tolerance", "5s"],
      "--clock-tolerance needs --jwks-url or --introspection-url: it applies to the tokens they check",
    ],
    [
      [...jwt, "--jwks-timeout", "0"],
      '--jwks-timeout "0" is not a duration; write seconds (10) or a number with ms, s, m or h (500ms, 30m)',
    ],
    [[...jwt, "--jwks-max-bytes", "lots"], '--jwks-max-bytes "lots" is not a size; write bytes (1048576) or 512k, 1m'],
    [
      [...jwt, "--clock-tolerance", "10m"],
      '--clock-tolerance "10m" is more than 5m; a tolerance that large keeps accepting tokens long after they expire',
    ],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parse(argv)).toThrow(new HttpConfigError(message));
  });

  it("lists the flags in the help", () => {
    const text = usageText("1.2.3");
    // One column for the text, at least two spaces after the longest flag (issue 37).
    const rows = text.split("\n").filter((l) => /^ {2}-/.test(l));
    const columns = new Set(rows.map((l) => /^( {2}\S.*?\S) {2,}\S/.exec(l)?.[0].length));
    expect(columns.size, rows.join("\n")).toBe(1);
    expect(columns.has(undefined)).toBe(false);
    for (const flag of [
      "--jwks-max-stale TIME",
      "--jwks-cooldown TIME",
      "--jwks-timeout TIME",
      "--jwks-max-bytes BYTES",
    ]) {
      expect(text).toContain(flag);
    }
    expect(text).toContain("--clock-tolerance TIME");
  });
});
