import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { DEV_VERSIONS } from "./versions.js";

// A standalone pack is built and tested with what the workspace tests against.
it("pins the dev tools of a standalone pack to the workspace catalog", () => {
  const yaml = readFileSync(new URL("../../../pnpm-workspace.yaml", import.meta.url), "utf8");
  const block = yaml.split(/^catalog:\s*$/m)[1]?.split(/^\S/m)[0] ?? "";
  const catalog = Object.fromEntries(
    [...block.matchAll(/^\s+"?([^":\s]+)"?:\s*(\S+)\s*$/gm)].map((m) => [m[1] ?? "", m[2] ?? ""]),
  );
  for (const [name, version] of Object.entries(DEV_VERSIONS)) expect([name, version]).toEqual([name, catalog[name]]);
});
