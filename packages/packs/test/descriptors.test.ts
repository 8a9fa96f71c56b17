import { definePack, definePackDescriptor, defineTool } from "@toolshed/schema";
import { createTestSchema, pgReachable, type TestSchema } from "@toolshed/storage/postgres";
import { checkPackDescriptor, connectPack } from "@toolshed/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { BUILT_IN_PACKS, openPacks, PackConfigError } from "../src/index.js";

const reachable = await pgReachable();

// A pack with no store and one option, as a team would write one that calls an API.
const units = z.enum(["metric", "imperial"]).default("metric").describe("Units of the forecast");
const weather = definePackDescriptor({
  name: "weather",
  version: "1.0.0",
  description: "Forecasts",
  options: z.object({ units }).strict(),
  pack: ({ options }) =>
    definePack({
      name: "weather",
      tools: [
        defineTool({
          name: "get_forecast",
          description: "The forecast for a city",
          input: z.object({ city: z.string().max(100).describe("City name, e.g. Oslo") }),
          annotations: { readOnlyHint: true, openWorldHint: true },
          handler: ({ city }) => `${city}: 21 degrees (${options.units})`,
        }),
      ],
    }),
});

describe("the built-in packs' descriptors", () => {
  let db: TestSchema | undefined;
  beforeAll(async () => {
    if (reachable) db = await createTestSchema();
  });
  afterAll(() => db?.drop());

  it.each(["notes", "tickets", "crm"] as const)(
    "%s opens on SQLite and PostgreSQL twice, takes its demo data twice and lists its tools",
    async (name) => {
      const report = await checkPackDescriptor(BUILT_IN_PACKS[name], db ? { postgresPool: db.pool() } : {});
      expect(report.name).toBe(name);
      expect(report.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(report.stores).toEqual(reachable ? ["sqlite", "postgres"] : ["sqlite"]);
      expect(report.tools.length).toBeGreaterThanOrEqual(4);
    },
  );

  it("publish the JSON Schema of their options", () => {
    expect(BUILT_IN_PACKS.notes.optionsJsonSchema).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
    expect(BUILT_IN_PACKS.crm.optionsJsonSchema).toMatchObject({
      type: "object",
      properties: { timeoutMs: { type: "integer", minimum: 1, maximum: 600_000 } },
      additionalProperties: false,
    });
  });
});

describe("checkPackDescriptor", () => {
  it("names what is not a descriptor and how to export one", async () => {
    await expect(checkPackDescriptor({ name: "notes" })).rejects.toThrowError(
      /^not a pack descriptor: export one from the package's main entry as `export const toolshedPack = definePackDescriptor/,
    );
  });

  it("reports a pack that fails to build, with the store it was on", async () => {
    const broken = definePackDescriptor({
      ...BUILT_IN_PACKS.notes,
      name: "broken",
      pack: () => {
        throw new Error("no API key");
      },
    });
    await expect(checkPackDescriptor(broken)).rejects.toThrowError('pack "broken": sqlite store: no API key');
  });

  it("checks the options it is given against the descriptor's schema", async () => {
    await expect(checkPackDescriptor(weather, { options: { units: "kelvin" } })).rejects.toThrowError(
      'pack "weather": its options schema refuses the options given: units: must be one of "metric", "imperial" (got "kelvin")',
    );
    expect(await checkPackDescriptor(weather)).toEqual({
      name: "weather",
      version: "1.0.0",
      stores: [],
      tools: ["get_forecast"],
    });
  });
});

describe("openPacks with descriptors", () => {
  it("serves a pack with no store beside a built-in one, with its options", async () => {
    const opened = await openPacks({
      db: ":memory:",
      packs: ["notes", { name: "weather", descriptor: weather, options: { units: "imperial" } }],
    });
    expect(opened.names).toEqual(["notes", "weather"]);
    const connection = await connectPack(opened.packs, { closePacks: false });
    try {
      const result = await connection.call("get_forecast", { city: "Oslo" });
      expect(result.content).toEqual([{ type: "text", text: "Oslo: 21 degrees (imperial)" }]);
      expect((await connection.listTools()).map((t) => t.name)).toContain("create_note");
    } finally {
      await connection.close();
      await opened.close();
    }
  });

  it("refuses options the pack does not take, naming each and what works", async () => {
    const open = openPacks({
      db: ":memory:",
      packs: [{ name: "weather", descriptor: weather, options: { unit: "metric", units: "kelvin" } }],
    });
    await expect(open).rejects.toThrowError(PackConfigError);
    await expect(open).rejects.toThrowError(
      'pack "weather" options: units: must be one of "metric", "imperial" (got "kelvin"); unit: unknown option; did you mean "units"? Its options: units',
    );
  });

  it("refuses a pack given twice and a SQLite-only pack on PostgreSQL before connecting", async () => {
    await expect(openPacks({ db: ":memory:", packs: ["notes", "notes"] })).rejects.toThrowError(
      'pack "notes" is given twice; serve each pack once',
    );
    const sqliteOnly = definePackDescriptor({
      ...BUILT_IN_PACKS.notes,
      name: "local",
      stores: { sqlite: BUILT_IN_PACKS.notes.stores?.sqlite },
    });
    await expect(
      openPacks({ databaseUrl: "postgres://u@127.0.0.1:1/none", packs: [{ name: "local", descriptor: sqliteOnly }] }),
    ).rejects.toThrowError(
      'pack "local" keeps its data only on SQLite; serve it without --database-url, on a SQLite file (--db)',
    );
  });
});
