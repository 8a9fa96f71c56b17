// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's syntax
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVER_SETTINGS } from "@toolshed/packs";
import { afterEach, describe, expect, it } from "vitest";
import { HTTP_FLAGS } from "../src/args.js";
import { connect, killChildren, removeTempDirs, runCli, startServer, tempDir } from "./helpers.js";

afterEach(async () => {
  await killChildren();
  removeTempDirs();
});

// A pack as a team publishes one (no store, one option), kept with the packs' tests.
const WEATHER = fileURLToPath(new URL("../../../packages/packs/test/fixtures/weather-pack", import.meta.url));

/** A folder with toolshed.config.json and the weather pack installed in its node_modules. */
function team(config: unknown): { dir: string; file: string } {
  const { dir, file } = tempDir("team");
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(WEATHER, join(dir, "node_modules", "weather-pack"), "dir");
  writeFileSync(file("toolshed.config.json"), JSON.stringify(config));
  return { dir, file: file("toolshed.config.json") };
}

describe("toolshed.config.json", () => {
  it("every flag but --packs, --config and --check-config is a setting of the file, read from the same variable", () => {
    const settings = Object.fromEntries(Object.values(SERVER_SETTINGS).map((s) => [s.flag, s]));
    for (const [flag, spec] of Object.entries(HTTP_FLAGS)) {
      if (["help", "version", "packs", "config", "check-config"].includes(flag)) continue;
      expect(settings[flag], flag).toMatchObject({ env: "env" in spec ? spec.env : undefined });
      expect(settings[flag]?.kind === "boolean", flag).toBe(spec.type === "boolean");
    }
  });

  it("serves a built-in pack and one installed by name with its options, no server code", async () => {
    const { file } = team({
      packs: { "@toolshed/notes": {}, "weather-pack": { options: { units: "imperial" } } },
      server: { rateLimit: 1000 },
    });
    const server = await startServer(["--config", file]);
    const { client } = await connect(server.url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([
      "get_note",
      "search_notes",
      "list_notes",
      "create_note",
      "update_note",
      "delete_note",
      "get_forecast",
    ]);
    const result = await client.callTool({ name: "get_forecast", arguments: { city: "Oslo" } });
    expect(result.content).toEqual([{ type: "text", text: "Oslo: 21 degrees (imperial)" }]);
    await client.close();
  });

  it("reshaped tools keep access control: a pack's scopes hide it from a token without them, over HTTP", async () => {
    const { dir, file } = team({
      packs: {
        "@toolshed/notes": { prefix: "kb_", scopes: ["kb"], tools: { delete_note: { hide: true } } },
        "weather-pack": { tools: { get_forecast: { name: "forecast", arguments: { city: { maxLength: 10 } } } } },
      },
      server: { tokensFile: "tokens.txt" },
    });
    writeFileSync(
      join(dir, "tokens.txt"),
      "full-token-0123456789 tools:read tools:write kb\nplain-token-0123456789 tools:read tools:write\n",
    );
    const server = await startServer(["--config", file]);
    const full = await connect(server.url, { token: "full-token-0123456789" });
    expect((await full.client.listTools()).tools.map((t) => t.name)).toEqual([
      "kb_get_note",
      "kb_search_notes",
      "kb_list_notes",
      "kb_create_note",
      "kb_update_note",
      "forecast",
    ]);
    const plain = await connect(server.url, { token: "plain-token-0123456789" });
    expect((await plain.client.listTools()).tools.map((t) => t.name)).toEqual(["forecast"]);
    const long = await plain.client.callTool({ name: "forecast", arguments: { city: "Llanfairpwllgwyngyll" } });
    expect(long.isError).toBe(true);
    expect(long.content).toEqual([
      { type: "text", text: "Invalid arguments for tool forecast:\ncity: must be at most 10 characters (got 20)" },
    ]);
    await full.client.close();
    await plain.client.close();
  });

  it("a flag and a TOOLSHED_* variable win over the file", async () => {
    const { file } = team({ packs: { "weather-pack": {} }, server: { readOnly: true } });
    // --packs replaces the file's packs; TOOLSHED_READ_ONLY=0 turns the file's readOnly off.
    const server = await startServer(["--config", file, "--packs", "notes"], { env: { TOOLSHED_READ_ONLY: "0" } });
    const { client } = await connect(server.url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("create_note");
    expect(names).not.toContain("get_forecast");
    await client.close();
  });

  it("--check-config prints what would be served and exits 0 without serving", async () => {
    const { file } = team({ packs: { "weather-pack": {}, "@toolshed/crm": { options: { timeoutMs: 2000 } } } });
    const { code, stdout, stderr } = await runCli(["--check-config", "--config", file]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain(`config file ${file}: OK\npacks (2):\n  weather 1.4.0: Forecasts for a city\n`);
    expect(stdout).toMatch(
      /\n {4}from weather-pack \(file:\/\/\/.+\/weather-pack\/index\.mjs\)\n {4}options \{"units":"metric"\}\n {4}tools: get_forecast\n/,
    );
    expect(stdout).toContain('    from @toolshed/crm (built in)\n    options {"timeoutMs":2000}\n');
  });

  it("a bad file is every problem with its JSON path, exit 2, nothing served and no stack trace", async () => {
    const { file } = team({
      packs: { "wether-pack": {}, "weather-pack": { options: { units: "kelvin" } } },
      server: { prot: 3000, host: "${TOOLSHED_TEST_UNSET_HOST}" },
    });
    for (const args of [
      ["--config", file],
      ["--check-config", "--config", file],
    ]) {
      const { code, stdout, stderr } = await runCli(args);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stderr.trimEnd().split("\n")).toEqual([
        `toolshed-http: ${file} has 4 problems:`,
        "  server.host: ${TOOLSHED_TEST_UNSET_HOST} is not set in the environment; set TOOLSHED_TEST_UNSET_HOST, or write ${TOOLSHED_TEST_UNSET_HOST:-default} to give a default",
        expect.stringMatching(/^ {2}server\.prot: unknown key; did you mean "port"\? Valid keys: host, port, /),
        expect.stringMatching(
          /^ {2}packs\["wether-pack"\]: no package "wether-pack" is installed in .+ or above; install it \(npm install wether-pack\) or give a path starting with \.\/$/,
        ),
        '  packs["weather-pack"].options.units: must be one of "metric", "imperial" (got "kelvin")',
      ]);
    }
  });

  it("reads ./toolshed.config.json from where it starts, and a missing --config file is exit 2", async () => {
    const { dir, file } = team({ packs: { "weather-pack": {} } });
    const found = await runCli(["--check-config"], {}, dir);
    expect(found.code).toBe(0);
    expect(found.stdout).toContain(`config file ${file}: OK\npacks (1):\n  weather 1.4.0`);
    const missing = await runCli(["--config", "/nonexistent/toolshed.config.json"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      "toolshed-http: /nonexistent/toolshed.config.json has a problem:\n  (file): does not exist; give --config the path of a JSON file such as ./toolshed.config.json\n",
    );
  });
});
