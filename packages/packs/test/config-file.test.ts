// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's syntax
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openSqlite } from "@toolshed/storage";
import { createTestSchema, pgReachable } from "@toolshed/storage/postgres";
import { connectPack } from "@toolshed/testing";
import { afterAll, describe, expect, it } from "vitest";
import {
  ConfigFileError,
  configFlagOf,
  configJsonSchema,
  describeConfig,
  findConfigFile,
  loadConfigFile,
  openPacks,
} from "../src/index.js";

const reachable = await pgReachable();
const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
// Config folders live under this package, so a pack found by path resolves its imports here.
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function folderWith(config: unknown): { dir: string; file: string } {
  const dir = mkdtempSync(join(fixtures, "team-"));
  made.push(dir);
  const file = join(dir, "toolshed.config.json");
  writeFileSync(file, typeof config === "string" ? config : JSON.stringify(config, null, 2));
  return { dir, file };
}

async function problemsOf(config: unknown, env: Record<string, string> = {}) {
  const { file } = folderWith(config);
  const error = await loadConfigFile(file, env).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigFileError);
  return (error as ConfigFileError).problems;
}

describe("toolshed.config.schema.json", () => {
  it("is the published JSON Schema of the file (TOOLSHED_UPDATE_SNAPSHOTS=1 rewrites it)", () => {
    const path = fileURLToPath(new URL("../toolshed.config.schema.json", import.meta.url));
    const current = `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
    if (process.env.TOOLSHED_UPDATE_SNAPSHOTS === "1") writeFileSync(path, current);
    expect(readFileSync(path, "utf8")).toBe(current);
  });
});

describe("loadConfigFile", () => {
  it("loads a built-in pack by package name, a pack by path and one installed in node_modules by name, with options", async () => {
    const { dir, file } = folderWith({
      $schema: "./node_modules/@toolshed/packs/toolshed.config.schema.json",
      packs: {
        "@toolshed/notes": {},
        "../weather-pack": { options: { units: "imperial" } },
      },
    });
    const loaded = await loadConfigFile(file, {});
    expect(loaded.packs?.map((p) => [p.name, p.descriptor.version, p.options])).toEqual([
      ["notes", expect.stringMatching(/^\d+\.\d+\.\d+/), {}],
      ["weather", "1.4.0", { units: "imperial" }],
    ]);

    // The same pack installed into the folder's node_modules, found by its package name.
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(join(fixtures, "weather-pack"), join(dir, "node_modules", "weather-pack"), "dir");
    writeFileSync(file, JSON.stringify({ packs: { "weather-pack": {} } }));
    const byName = await loadConfigFile(file, {});
    expect(byName.packs?.map((p) => [p.name, p.options])).toEqual([["weather", { units: "metric" }]]);
    expect(byName.sources["weather-pack"]).toMatch(/^file:.*weather-pack\/index\.mjs$/);

    const opened = await openPacks({ db: ":memory:", packs: byName.packs ?? [] });
    const connection = await connectPack(opened.packs, { closePacks: false });
    try {
      const result = await connection.call("get_forecast", { city: "Oslo" });
      expect(result.content).toEqual([{ type: "text", text: "Oslo: 21 degrees (metric)" }]);
    } finally {
      await connection.close();
      await opened.close();
    }
  });

  it("turns settings into the variables the flags read, paths relative to the file and ${VAR} from the environment", async () => {
    const { dir, file } = folderWith({
      server: {
        port: 8080,
        db: "data/team.db",
        demo: true,
        allowedHosts: ["a.example", "b.example"],
        databaseSchema: "${SCHEMA:-toolshed}",
        jwtAudience: "${AUDIENCE}",
        maxBody: "2m",
      },
    });
    const loaded = await loadConfigFile(file, { AUDIENCE: "https://mcp.example" });
    expect(loaded.packs).toBeUndefined();
    expect(loaded.env).toEqual({
      TOOLSHED_PORT: "8080",
      TOOLSHED_DB: join(dir, "data/team.db"),
      TOOLSHED_DEMO: "true",
      TOOLSHED_ALLOWED_HOSTS: "a.example,b.example",
      TOOLSHED_DATABASE_SCHEMA: "toolshed",
      TOOLSHED_JWT_AUDIENCE: "https://mcp.example",
      TOOLSHED_MAX_BODY: "2m",
    });
    expect([...loaded.settings].sort()).toEqual([
      "allowedHosts",
      "databaseSchema",
      "db",
      "demo",
      "jwtAudience",
      "maxBody",
      "port",
    ]);
  });

  it("lists every problem with its JSON path and what would work, before anything is opened", async () => {
    const problems = await problemsOf(
      {
        pack: {},
        packs: { zod: {} },
        server: { port: true, rateLimt: 5, databaseUrl: "${DATABASE_URL}" },
      },
      {},
    );
    expect(problems).toEqual([
      {
        path: "server.databaseUrl",
        message:
          "${DATABASE_URL} is not set in the environment; set DATABASE_URL, or write ${DATABASE_URL:-default} to give a default",
      },
      {
        path: "pack",
        message: expect.stringMatching(/^unknown key; did you mean "packs"\? Valid keys: \$schema, packs, server/),
      },
      { path: "server.rateLimt", message: expect.stringMatching(/^unknown key; did you mean "rateLimit"\?/) },
      { path: "server.port", message: expect.stringContaining("must be") },
      // The packs are checked too, though the rest of the file has problems.
      ...(await problemsOf({ packs: { zod: {} } })),
    ]);
  });

  it("names each pack that cannot be loaded, and each option a pack does not take", async () => {
    const problems = await problemsOf({
      packs: {
        "@toolshed/notes": { options: { verbose: true } },
        "no-such-pack": {},
        zod: {},
        "./missing": {},
        "../weather-pack": { options: { units: "kelvin" } },
        "@toolshed/crm": { options: { timeoutMs: 0 } },
      },
    });
    expect(problems).toEqual([
      { path: 'packs["@toolshed/notes"].options.verbose', message: "unknown option; this pack takes no options" },
      {
        path: 'packs["no-such-pack"]',
        message: expect.stringMatching(
          /^no package "no-such-pack" is installed in .+ or above; install it \(npm install no-such-pack\) or give a path starting with \.\/$/,
        ),
      },
      {
        path: "packs.zod",
        message:
          "is not a Toolshed pack: it exports no toolshedPack (a pack descriptor from definePackDescriptor of @toolshed/schema); packs made with create-toolshed-pack export one",
      },
      {
        path: 'packs["./missing"]',
        message: expect.stringMatching(
          /missing does not exist; give the path of a pack's folder or its built entry file$/,
        ),
      },
      { path: 'packs["../weather-pack"].options.units', message: 'must be one of "metric", "imperial" (got "kelvin")' },
      { path: 'packs["@toolshed/crm"].options.timeoutMs', message: "must be at least 1 (got 0)" },
    ]);
    // A pack whose options object is not strict: the same words.
    expect(await problemsOf({ packs: { "../weather-pack": { options: { unit: "metric" } } } })).toEqual([
      {
        path: 'packs["../weather-pack"].options.unit',
        message: 'unknown option; did you mean "units"? Valid options: units',
      },
    ]);
  });

  it("refuses the same pack twice, a file that is not JSON and one that does not exist", async () => {
    expect(await problemsOf({ packs: { "../weather-pack": {}, "../weather-pack/index.mjs": {} } })).toEqual([
      {
        path: 'packs["../weather-pack/index.mjs"]',
        message: 'is also the pack "weather" (as packs["../weather-pack"]); serve each pack once',
      },
    ]);
    expect(await problemsOf("{ packs: }")).toEqual([{ path: "", message: expect.stringMatching(/^is not JSON: /) }]);
    const missing = await loadConfigFile(join(fixtures, "nowhere.json")).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(
      /nowhere\.json has a problem:\n {2}\(file\): does not exist; give --config the path of a JSON file such as \.\/toolshed\.config\.json$/,
    );
  });
});

describe("a database per pack", () => {
  it("keeps a pack with a database of its own in its own SQLite file, the others and the tasks in the shared one", async () => {
    const { dir, file } = folderWith({
      packs: { "@toolshed/notes": { database: "notes.db" }, "@toolshed/tickets": {} },
    });
    const loaded = await loadConfigFile(file, {});
    expect(loaded.packs?.map((p) => p.database)).toEqual([{ db: join(dir, "notes.db") }, undefined]);
    const opened = await openPacks({ db: join(dir, "shared.db"), demo: true, packs: loaded.packs ?? [] });
    try {
      expect(opened.names).toEqual(["notes", "tickets"]);
      expect(await opened.readiness()).toEqual({ ready: true });
      const tables = (path: string) => {
        const db = openSqlite(path, { readonly: true });
        try {
          return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
            (row) => row.name,
          );
        } finally {
          db.close();
        }
      };
      expect(tables(join(dir, "notes.db"))).toContain("notes");
      expect(tables(join(dir, "notes.db"))).not.toContain("tickets");
      expect(tables(join(dir, "shared.db"))).toEqual(expect.arrayContaining(["tickets"]));
      expect(tables(join(dir, "shared.db"))).not.toContain("notes");
      expect(opened.tasksDatabase).toBeDefined();
      const connection = await connectPack(opened.packs, { closePacks: false });
      try {
        const note = await connection.call("get_note", { title: "groceries" });
        expect(note.isError).toBeFalsy();
      } finally {
        await connection.close();
      }
    } finally {
      await opened.close();
    }
  });

  it.skipIf(!reachable)("serves one pack from PostgreSQL beside the others on SQLite", async () => {
    const pg = await createTestSchema();
    try {
      const { dir, file } = folderWith({
        packs: {
          "@toolshed/notes": {},
          "@toolshed/crm": { database: "${PG_URL}", databaseSchema: pg.schema },
        },
      });
      const loaded = await loadConfigFile(file, { PG_URL: pg.url });
      const opened = await openPacks({ db: join(dir, "shared.db"), demo: true, packs: loaded.packs ?? [] });
      try {
        expect(await opened.readiness()).toEqual({ ready: true });
        const rows = await pg.pool().query("SELECT count(*)::int AS n FROM crm_accounts");
        expect(rows.rows[0]?.n).toBeGreaterThan(0);
        const connection = await connectPack(opened.packs, { closePacks: false });
        try {
          const found = await connection.call("crm_search_accounts", { query: "ac" });
          expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
        } finally {
          await connection.close();
        }
      } finally {
        await opened.close();
      }
    } finally {
      await pg.drop();
    }
  });

  it("takes a PostgreSQL URL for one pack and refuses a schema without one", async () => {
    const { file } = folderWith({
      packs: { "@toolshed/crm": { database: "postgres://127.0.0.1:5432/test", databaseSchema: "crm_only" } },
    });
    expect((await loadConfigFile(file, {})).packs?.[0]?.database).toEqual({
      databaseUrl: "postgres://127.0.0.1:5432/test",
      databaseSchema: "crm_only",
    });
    expect(await problemsOf({ packs: { "@toolshed/crm": { databaseSchema: "crm_only" } } })).toEqual([
      { path: 'packs["@toolshed/crm"].databaseSchema', message: "needs a PostgreSQL database in database" },
    ]);
  });
});

describe("transforms in the file", () => {
  it("reshape what a real MCP client sees and what a call may send, on a built-in pack and one with no store", async () => {
    const { file } = folderWith({
      packs: {
        "@toolshed/notes": {
          prefix: "kb_",
          tools: {
            delete_note: { hide: true },
            update_note: { hide: true },
            search_notes: { name: "find", description: "Find notes", arguments: { limit: { maximum: 5 } } },
          },
        },
        "../weather-pack": { tools: { get_forecast: { arguments: { city: { value: "Oslo" } } } } },
      },
    });
    const loaded = await loadConfigFile(file, {});
    const opened = await openPacks({ db: ":memory:", demo: true, packs: loaded.packs ?? [] });
    const connection = await connectPack(opened.packs, { closePacks: false });
    try {
      const tools = await connection.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "kb_get_note",
        "kb_find",
        "kb_list_notes",
        "kb_create_note",
        "get_forecast",
      ]);
      const find = tools.find((t) => t.name === "kb_find");
      expect(find?.description).toBe("Find notes");
      expect(find?.inputSchema.properties?.limit).toMatchObject({ maximum: 5 });
      expect(tools.find((t) => t.name === "get_forecast")?.inputSchema.properties).toEqual({});

      const refused = await connection.call("kb_find", { query: "milk", limit: 20 });
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([
        { type: "text", text: "Invalid arguments for tool kb_find:\nlimit: must be at most 5 (got 20)" },
      ]);
      expect((await connection.call("kb_find", { query: "milk", limit: 5 })).isError).toBeFalsy();
      const forecast = await connection.call("get_forecast", {});
      expect(forecast.content).toEqual([{ type: "text", text: "Oslo: 21 degrees (metric)" }]);
      // A hidden tool is unknown, and no hint names it.
      await expect(connection.call("delete_note", { title: "groceries" })).rejects.toThrowError(
        "Unknown tool: delete_note. Closest tools: kb_get_note, kb_create_note, kb_list_notes",
      );
    } finally {
      await connection.close();
      await opened.close();
    }
  });

  it("a transform naming no tool or widening a bound is a problem at its path, before anything starts", async () => {
    expect(
      await problemsOf({
        packs: {
          "@toolshed/notes": { tools: { get_notes: { hide: true } } },
          "@toolshed/crm": { prefix: "x y" },
          "../weather-pack": { tools: { get_forecast: { arguments: { city: { maxLength: 500 } } } } },
        },
      }),
    ).toEqual([
      { path: 'packs["@toolshed/crm"].prefix', message: expect.stringMatching(/^must match the pattern/) },
      {
        path: 'packs["@toolshed/notes"].tools.get_notes',
        message: expect.stringMatching(/^names no tool of the pack; did you mean "get_note"\? Its tools: get_note, /),
      },
      {
        path: 'packs["../weather-pack"].tools.get_forecast.arguments.city.maxLength',
        message: "500 would widen the tool's own maxLength 100; a transform can only narrow a bound",
      },
    ]);
  });
});

describe("finding the file", () => {
  it("takes --config, else ./toolshed.config.json when it exists", async () => {
    expect(configFlagOf(["--port", "1", "--config", "a.json"])).toBe("a.json");
    expect(configFlagOf(["--config=b.json"])).toBe("b.json");
    expect(configFlagOf(["--port", "1"])).toBeUndefined();
    const { dir, file } = folderWith({});
    expect(await findConfigFile(undefined, dir)).toBe(file);
    expect(await findConfigFile("other.json", dir)).toBe(join(dir, "other.json"));
    expect(await findConfigFile(undefined, fixtures)).toBeUndefined();
  });

  it("describes what would be served without printing a value that came from the environment", async () => {
    const { file } = folderWith({ packs: { "../weather-pack": { options: { units: "${UNITS}" } } } });
    const loaded = await loadConfigFile(file, { UNITS: "imperial" });
    expect(loaded.packs?.[0]?.options).toEqual({ units: "imperial" });
    const text = await describeConfig(loaded, loaded.packs ?? []);
    expect(text).toContain('    options {"units":"(from the environment)"}\n');
    expect(text).not.toContain("imperial");
  });

  it("describes what would be served", async () => {
    const { file } = folderWith({
      packs: { "../weather-pack": { options: { units: "imperial" } } },
      server: { port: 1 },
    });
    const loaded = await loadConfigFile(file, {});
    const text = await describeConfig(loaded, loaded.packs ?? []);
    expect(text).toBe(
      [
        `config file ${file}: OK`,
        "packs (1):",
        "  weather 1.4.0: Forecasts for a city",
        `    from ../weather-pack (${loaded.sources["../weather-pack"]})`,
        '    options {"units":"imperial"}',
        "    tools: get_forecast",
        "settings from the file (a flag or TOOLSHED_* variable wins): port",
        "",
      ].join("\n"),
    );
  });
});
