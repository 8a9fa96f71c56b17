import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEV_VERSIONS, hasNodeSqlite } from "./versions.js";

// A standalone pack is built and tested with what the workspace tests against.
it("pins the dev tools of a standalone pack to the workspace catalog", () => {
  const yaml = readFileSync(new URL("../../../pnpm-workspace.yaml", import.meta.url), "utf8");
  const block = yaml.split(/^catalog:\s*$/m)[1]?.split(/^\S/m)[0] ?? "";
  const catalog = Object.fromEntries(
    [...block.matchAll(/^\s+"?([^":\s]+)"?:\s*(\S+)\s*$/gm)].map((m) => [m[1] ?? "", m[2] ?? ""]),
  );
  for (const [name, version] of Object.entries(DEV_VERSIONS)) expect([name, version]).toEqual([name, catalog[name]]);
});

describe("hasNodeSqlite", () => {
  it("is true from Node 22.16 on, where @toolshed/storage uses node:sqlite", () => {
    expect(["20.19.0", "22.15.1"].map((v) => hasNodeSqlite(v))).toEqual([false, false]);
    expect(["22.16.0", "24.21.0", "26.10.0"].map((v) => hasNodeSqlite(v))).toEqual([true, true, true]);
  });
});
