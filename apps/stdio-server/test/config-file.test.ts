import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVER_SETTINGS } from "@toolshed/packs";
import { afterEach, describe, expect, it } from "vitest";
import { STDIO_FLAGS } from "../src/args.js";
import { cleanEnv, cleanup, connectClient, runCli, tempDir } from "./helpers.js";

afterEach(cleanup);

// A pack as a team publishes one (no store, one option), kept with the packs' tests.
const WEATHER = fileURLToPath(new URL("../../../packages/packs/test/fixtures/weather-pack", import.meta.url));

/** A folder with toolshed.config.json and the weather pack installed in its node_modules. */
function team(config: unknown): string {
  const { dir, file } = tempDir("team");
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(WEATHER, join(dir, "node_modules", "weather-pack"), "dir");
  writeFileSync(file("toolshed.config.json"), JSON.stringify(config));
  return file("toolshed.config.json");
}

describe("toolshed.config.json over stdio", () => {
  it("every flag but --packs, --config and --check-config is a setting of the file, read from the same variable", () => {
    const settings = Object.fromEntries(Object.values(SERVER_SETTINGS).map((s) => [s.flag, s]));
    for (const [flag, spec] of Object.entries(STDIO_FLAGS)) {
      if (["help", "version", "packs", "config", "check-config"].includes(flag)) continue;
      expect(settings[flag], flag).toMatchObject({ env: "env" in spec ? spec.env : undefined });
      expect(settings[flag]?.kind === "boolean", flag).toBe(spec.type === "boolean");
    }
  });

  it("serves the file's packs and settings (HTTP-only settings are left to toolshed-http)", async () => {
    const file = team({
      packs: { "@toolshed/tickets": {}, "weather-pack": { options: { units: "imperial" } } },
      server: { db: "team.db", readOnly: true, port: 8080, rateLimit: 100 },
    });
    const { client } = await connectClient(["--config", file, "--demo"]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    // readOnly from the file: only the read-only tools of tickets, and the forecast.
    expect(names).toEqual(["search_tickets", "get_ticket", "get_forecast"]);
    const result = await client.callTool({ name: "get_forecast", arguments: { city: "Oslo" } });
    expect(result.content).toEqual([{ type: "text", text: "Oslo: 21 degrees (imperial)" }]);
  });

  it("--check-config prints what would be served; a bad file is one stderr line naming every problem, exit 2", async () => {
    const good = team({ packs: { "weather-pack": {} } });
    const checked = await runCli(["--check-config", "--config", good]);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain(`config file ${good}: OK\npacks (1):\n  weather 1.4.0: Forecasts for a city\n`);

    const bad = team({ packs: { "weather-pack": { options: { units: "kelvin" } } }, server: { demo: "yes" } });
    const served = await runCli(["--config", bad], cleanEnv());
    expect(served.code).toBe(2);
    expect(served.stdout).toBe("");
    expect(served.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(served.stderr).toMatch(
      /^toolshed-stdio: .+toolshed\.config\.json has 2 problems: server\.demo: .+ packs\["weather-pack"\]\.options\.units: must be one of "metric", "imperial" \(got "kelvin"\)\n$/,
    );
  });
});
