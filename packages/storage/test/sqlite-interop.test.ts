/**
 * A database file written by one driver opens with the other: better-sqlite3 here (Node 20),
 * node:sqlite in a Node 22 child (the `node` npm package that conformance/node22 installs, or
 * TOOLSHED_NODE22), which runs this package's sources with type stripping.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../src/open-store.js";
import { readSqliteSchemaVersions } from "../src/schema-versions.js";
import { defaultSqliteDriver, sqliteDriver } from "../src/sqlite-driver.js";
import { addItem, readItems, schema } from "./fixtures/interop-schema.js";

const here = dirname(fileURLToPath(import.meta.url));

function node22(): string | undefined {
  if (process.env.TOOLSHED_NODE22) return process.env.TOOLSHED_NODE22;
  try {
    const holder = createRequire(join(here, "../../../conformance/node22/package.json"));
    const manifest = holder.resolve("node/package.json");
    return join(dirname(manifest), JSON.parse(readFileSync(manifest, "utf8")).bin.node);
  } catch {
    return undefined;
  }
}

const otherNode = node22();
const runs = defaultSqliteDriver() === "better-sqlite3" && otherNode !== undefined;

/** The child's JSON output; fails on any stderr (node:sqlite's ExperimentalWarning included). */
function child(file: string, name: string, body: string): unknown {
  const out = spawnSync(
    otherNode as string,
    ["--import", join(here, "fixtures/resolve-ts.mjs"), join(here, "fixtures/interop-child.ts"), file, name, body],
    { encoding: "utf8", timeout: 30_000 },
  );
  expect({ status: out.status, stderr: out.stderr }).toEqual({ status: 0, stderr: "" });
  return JSON.parse(out.stdout);
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolshed-interop-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(runs)("a database file moves between drivers", () => {
  it("better-sqlite3 writes, node:sqlite migrates and writes, better-sqlite3 reads it all", () => {
    const file = join(dir, "items.db");
    const db = openSqliteStore(file, { schema: schema(1), driver: "better-sqlite3" });
    addItem(db, "pancakes", "flour, milk and eggs");
    addItem(db, "omelette", "eggs and butter");
    db.close();

    expect(child(file, "shopping", "eggs, pancake mix")).toEqual({
      driver: "node",
      versions: [{ scope: "items", v: 2 }],
      rows: [
        { name: "pancakes", body: "flour, milk and eggs" },
        { name: "omelette", body: "eggs and butter" },
      ],
      hits: [
        { name: "omelette", snippet: "[eggs] and butter" },
        { name: "pancakes", snippet: "flour, milk and [eggs]" },
      ],
    });
    // The child closed cleanly: its WAL was checkpointed and removed.
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(readSqliteSchemaVersions(file)).toEqual(new Map([["items", 2]]));

    const back = openSqliteStore(file, { schema: schema(2), driver: "better-sqlite3" });
    expect(sqliteDriver(back)).toBe("better-sqlite3");
    expect(back.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(readItems(back, "pancake").hits).toEqual([
      { name: "pancakes", snippet: "flour, milk and eggs" },
      { name: "shopping", snippet: "eggs, [pancake] mix" },
    ]);
    expect(back.prepare("SELECT tag FROM items WHERE name = 'shopping'").pluck().get()).toBe("none");
    back.close();
  });

  it("node:sqlite creates a file, better-sqlite3 opens and writes it, node:sqlite reads that", () => {
    const file = join(dir, "new.db");
    expect(child(file, "tea", "leaves and water")).toEqual({
      driver: "node",
      versions: [{ scope: "items", v: 2 }],
      rows: [],
      hits: [],
    });
    const db = openSqliteStore(file, { schema: schema(2), driver: "better-sqlite3" });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(readItems(db, "water")).toEqual({
      rows: [{ name: "tea", body: "leaves and water" }],
      hits: [{ name: "tea", snippet: "leaves and [water]" }],
    });
    addItem(db, "coffee", "beans and water");
    db.close();
    expect(child(file, "cocoa", "powder and milk")).toMatchObject({
      rows: [
        { name: "tea", body: "leaves and water" },
        { name: "coffee", body: "beans and water" },
      ],
      hits: [],
    });
  });
});

if (!runs) {
  describe("a database file moves between drivers", () => {
    it.skip(`needs better-sqlite3 in this Node and a Node 22 binary (conformance/node22 or TOOLSHED_NODE22); this is Node ${process.version}`, () => {});
  });
}
