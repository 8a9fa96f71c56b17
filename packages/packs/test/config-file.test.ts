// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's syntax
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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
      { path: 'packs["@toolshed/notes"].options', message: 'unknown key "verbose"' },
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
