import { describe, expect, it } from "vitest";
import { packageNameProblem, packNames } from "./name.js";

describe("packNames", () => {
  it.each([
    ["my-pack", "my", "My", "my", "my"],
    ["@acme/weather-pack", "weather", "Weather", "weather", "weather"],
    ["toolshed-crm-sync", "crm_sync", "CrmSync", "crmSync", "crm-sync"],
    ["@acme/pack", "pack", "Pack", "pack", "pack"],
    ["toolshed-pack", "toolshed_pack", "ToolshedPack", "toolshedPack", "toolshed-pack"],
    ["open.weather_v2", "open_weather_v2", "OpenWeatherV2", "openWeatherV2", "open-weather-v2"],
    ["3d-models", "3d_models", "Pack3dModels", "pack3dModels", "pack-3d-models"],
    ["--", "pack", "Pack", "pack", "pack"],
  ])("%s gives the pack %s", (name, pack, pascal, camel, scheme) => {
    expect(packNames(name)).toMatchObject({ pack, pascal, camel, scheme });
    expect(packNames(name).snake).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it("gives an SQL identifier that does not start with a digit", () => {
    expect(packNames("3d-models").snake).toBe("pack_3d_models");
    expect(packNames("@acme/weather-pack").snake).toBe("weather");
  });

  it("keeps the unscoped name for the folder", () => {
    expect(packNames("@acme/weather-pack").unscoped).toBe("weather-pack");
  });
});

describe("packageNameProblem", () => {
  it.each(["my-pack", "@acme/weather-pack", "a", "a.b_c~d", "-dash", "x".repeat(214)])("accepts %s", (name) => {
    expect(packageNameProblem(name)).toBeUndefined();
  });

  it.each(["", " ", "My-Pack", "_x", ".x", "a b", "@acme", "@acme/", "@/x", "a/b", "node_modules", "http", "é"])(
    "refuses %j",
    (name) => {
      expect(packageNameProblem(name)).toEqual(expect.any(String));
    },
  );
});

describe("names that would leave the target folder (issue 36)", () => {
  it.each(["../escape", "..", ".", "@acme/../x", "@../x", "a/../../b", "/abs", "C:\\x", "..\\x"])(
    "refuses %s",
    (name) => {
      expect(packageNameProblem(name)).toBeDefined();
    },
  );
});
