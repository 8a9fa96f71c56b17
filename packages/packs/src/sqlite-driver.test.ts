import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "@toolshed/storage";
import { afterEach, describe, expect, it } from "vitest";
import { openPacks } from "./open-packs.js";
import { PackConfigError } from "./pack-names.js";
import { parseSqliteDriver } from "./sqlite-driver.js";

// node:sqlite is the default from Node 22.16; before it, better-sqlite3.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const NODE_SQLITE = major > 22 || (major === 22 && minor >= 16);

function betterSqlite3Loads(): boolean {
  try {
    openSqlite(":memory:", { driver: "better-sqlite3" }).close();
    return true;
  } catch {
    return false;
  }
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolshed-packs-driver-"));
  dirs.push(dir);
  return dir;
}

describe("parseSqliteDriver", () => {
  it("reads the three choices, in any case, and lists them for anything else", () => {
    expect(["auto", "node", "better-sqlite3", " Node "].map(parseSqliteDriver)).toEqual([
      "auto",
      "node",
      "better-sqlite3",
      "node",
    ]);
    expect(() => parseSqliteDriver("sqlite3")).toThrow(
      new PackConfigError(
        'unknown SQLite driver "sqlite3"; choose auto, node, better-sqlite3 (auto: node:sqlite on Node 22.16 or later, else better-sqlite3)',
      ),
    );
  });
});

describe("openPacks sqliteDriver", () => {
  it("auto (the default) opens with node:sqlite from Node 22.16, else better-sqlite3, and says which", async () => {
    const opened = await openPacks({ db: join(folder(), "t.db"), demo: true });
    try {
      expect(opened.sqliteDriver).toBe(NODE_SQLITE ? "node" : "better-sqlite3");
      expect(await opened.ready()).toBe(true);
    } finally {
      await opened.close();
    }
  });

  it("an explicit choice that loads is the one in use, also for :memory:", async () => {
    const driver = NODE_SQLITE ? "node" : "better-sqlite3";
    const opened = await openPacks({ db: ":memory:", sqliteDriver: driver });
    expect(opened.sqliteDriver).toBe(driver);
    await opened.close();
  });

  it.skipIf(NODE_SQLITE)("node before Node 22.16 is refused before the file is made, saying what works", async () => {
    const dir = folder();
    const error = await openPacks({ db: join(dir, "t.db"), sqliteDriver: "node" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PackConfigError);
    expect((error as Error).message).toBe(
      `--sqlite-driver node cannot be used: node:sqlite needs Node 22.16 or later and this is Node ${process.version}; run on Node 22.16 or later, or start with --sqlite-driver auto (better-sqlite3 here)`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it.skipIf(!NODE_SQLITE || betterSqlite3Loads())(
    "better-sqlite3 where its addon cannot load is refused before the file is made, saying what works",
    async () => {
      const dir = folder();
      const error = await openPacks({ db: join(dir, "t.db"), sqliteDriver: "better-sqlite3" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PackConfigError);
      expect((error as Error).message).toMatch(
        /^--sqlite-driver better-sqlite3 cannot be used: better-sqlite3 (is not installed|cannot be loaded in Node v\S+ \(\w+\)); start with --sqlite-driver auto \(node:sqlite, built into this Node\), or install it for Node v\S+ \(npm install better-sqlite3@12\.11\.1\)$/,
      );
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});
