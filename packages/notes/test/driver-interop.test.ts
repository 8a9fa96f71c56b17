/**
 * A notes file written through one SQLite driver opens with the other through SqliteNotesStore:
 * better-sqlite3 in this process (Node 20), node:sqlite in a child on a newer Node (Node 24 from
 * node-lines/node24, else Node 22 from conformance/node22, or TOOLSHED_NODE24), which runs the
 * sources with type stripping.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultSqliteDriver, openSqlite, sqliteDriver } from "@toolshed/storage";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteNotesStore } from "../src/sqlite/store.js";
import { tempDir } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, "..", "..", "..");

/** A Node with node:sqlite: its binary from the npm `node` package one of these holders installs. */
function newerNode(): string | undefined {
  if (process.env.TOOLSHED_NODE24) return process.env.TOOLSHED_NODE24;
  const holders = [
    ["node-lines", "@toolshed/node-lines-node24"],
    ["conformance", "@toolshed/conformance-node22"],
  ];
  for (const [folder = "", holder = ""] of holders) {
    try {
      const from = createRequire(join(ROOT, folder, "package.json"));
      const manifest = createRequire(from.resolve(`${holder}/package.json`)).resolve("node/package.json");
      const bin = join(dirname(manifest), JSON.parse(readFileSync(manifest, "utf8")).bin.node as string);
      if (existsSync(bin)) return bin;
    } catch {
      // not installed: try the next one
    }
  }
  return undefined;
}

const otherNode = newerNode();
const runs = defaultSqliteDriver() === "better-sqlite3" && otherNode !== undefined;
const JAN = () => new Date("2026-01-01T00:00:00.000Z");

/** What the child read before writing, and what it wrote; fails on any stderr (warnings included). */
function child(file: string, title: string, body: string) {
  const out = spawnSync(
    otherNode as string,
    [
      "--conditions=@toolshed/source",
      "--import",
      join(ROOT, "packages/storage/test/fixtures/resolve-ts.mjs"),
      join(here, "fixtures/driver-interop-child.ts"),
      file,
      "node",
      title,
      body,
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  expect({ status: out.status, stderr: out.stderr }).toEqual({ status: 0, stderr: "" });
  return JSON.parse(out.stdout) as Record<string, unknown>;
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
function notesFile(): string {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  return join(tmp.dir, "notes.db");
}

describe.runIf(runs)("a notes file moves between SQLite drivers", () => {
  it("better-sqlite3 writes notes, node:sqlite reads, searches and writes them, better-sqlite3 sees it all", async () => {
    const file = notesFile();
    const first = SqliteNotesStore.open(file, { driver: "better-sqlite3", now: JAN });
    await first.createNote({ title: "groceries", body: "milk, eggs", tags: ["home"] });
    await first.createNote({ title: "pancakes", body: "flour, milk and eggs", tags: ["recipes"] });
    await first.createNote({ title: "garage", body: "oil change" });
    await first.close();

    const fromNode = child(file, "omelette", "eggs and butter");
    expect(fromNode).toEqual({
      groceries: {
        title: "groceries",
        body: "milk, eggs",
        tags: ["home"],
        version: 1,
        created_at: "2026-01-01T00:00:00.000Z",
        updated_at: "2026-01-01T00:00:00.000Z",
      },
      hits: [
        { title: "groceries", snippet: "milk, **eggs**", updated_at: "2026-01-01T00:00:00.000Z" },
        { title: "pancakes", snippet: "flour, milk and **eggs**", updated_at: "2026-01-01T00:00:00.000Z" },
      ],
      titles: ["garage", "groceries", "pancakes"],
      created: {
        title: "omelette",
        body: "eggs and butter",
        tags: ["child"],
        version: 1,
        created_at: "2026-02-01T00:00:00.000Z",
        updated_at: "2026-02-01T00:00:00.000Z",
      },
      updatedVersion: 2,
    });
    // The child closed cleanly: its WAL was checkpointed and removed.
    expect(existsSync(`${file}-wal`)).toBe(false);

    const back = SqliteNotesStore.open(file, { driver: "better-sqlite3", now: JAN });
    expect(await back.getNote("groceries")).toMatchObject({ body: "milk, eggs, bread", version: 2 });
    expect((await back.searchNotes("butter", { limit: 5 })).map((h) => h.title)).toEqual(["omelette"]);
    // The child's idempotency key is honoured here: the same create answers the note it made.
    expect(
      await back.createNote(
        { title: "omelette", body: "eggs and butter", tags: ["child"] },
        { idempotencyKey: "key-omelette" },
      ),
    ).toEqual(fromNode.created);
    await back.close();
    const raw = openSqlite(file, { driver: "better-sqlite3" });
    expect(sqliteDriver(raw)).toBe("better-sqlite3");
    expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
    raw.close();
  });

  it("node:sqlite creates the file, better-sqlite3 writes to it, node:sqlite reads that", async () => {
    const file = notesFile();
    const created = child(file, "groceries", "milk, eggs");
    expect(created).toMatchObject({ groceries: null, hits: [], titles: [], updatedVersion: 2 });

    const store = SqliteNotesStore.open(file, { driver: "better-sqlite3", now: JAN });
    expect(await store.getNote("groceries")).toMatchObject({ body: "milk, eggs, bread", tags: ["child"], version: 2 });
    await store.createNote({ title: "pancakes", body: "flour, milk and eggs" });
    await store.close();

    expect(child(file, "tea", "leaves and water")).toMatchObject({
      hits: [
        { title: "groceries", snippet: "milk, **eggs**, bread" },
        { title: "pancakes", snippet: "flour, milk and **eggs**" },
      ],
      titles: ["groceries", "pancakes"],
    });
  });
});

if (!runs) {
  describe("a notes file moves between SQLite drivers", () => {
    it.skip(`needs better-sqlite3 in this Node and a Node with node:sqlite (node-lines/node24, conformance/node22 or TOOLSHED_NODE24); this is Node ${process.version}`, () => {});
  });
}
