import { openSqlite } from "@toolshed/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../src/seed.js";
import { errorMeta, type Harness, startHarness, text } from "./helpers.js";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await seedDemo(h.store);
});

afterAll(async () => {
  await h.close();
});

/** Row counts of every table the pack writes, read on a second connection. */
function counts(file: string): Record<string, number> {
  const db = openSqlite(file);
  try {
    const out: Record<string, number> = {};
    for (const table of ["notes", "note_tags", "notes_fts", "toolshed_idempotency", "toolshed_migrations"]) {
      out[table] = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    }
    db.exec("INSERT INTO notes_fts(notes_fts) VALUES ('integrity-check')");
    return out;
  } finally {
    db.close();
  }
}

const NASTY = [
  '"',
  '"milk',
  'milk"',
  '"milk eggs"',
  "'",
  "eggs'",
  "*",
  "milk*",
  "*milk",
  "-milk",
  "milk -eggs",
  "milk AND eggs",
  "milk OR",
  "OR",
  "AND",
  "NOT milk",
  "NEAR(milk eggs)",
  "NEAR",
  "(milk",
  "milk)",
  "()",
  "{title}: milk",
  "title:milk",
  "body : eggs",
  "^milk",
  "milk + eggs",
  "🎉",
  "🥛 milk",
  "👩‍👩‍👧‍👦",
  "\u0000milk",
  "milk\neggs",
  "'; DROP TABLE notes; --",
  "%",
  "_",
  "\\",
  "日本語",
  "ñandú",
  "x".repeat(500),
  "a b c d e f g h i j k l m n o p q r s t u v w x y z",
  "  milk  ",
  "",
  "   ",
  "x".repeat(501),
];

describe("search_notes: any user text is safe", () => {
  it("each nasty query is a result or a tool/validation error, never internal, and changes no data", async () => {
    const before = counts(h.file);
    for (const query of NASTY) {
      const result = await h.call("search_notes", { query });
      const meta = errorMeta(result);
      if (result.isError) {
        expect(meta?.kind, `query ${JSON.stringify(query)}: ${text(result)}`).not.toBe("internal");
        expect(["validation", "tool"]).toContain(meta?.kind);
      } else {
        expect(Array.isArray((result.structuredContent as { result: unknown }).result)).toBe(true);
      }
    }
    expect(counts(h.file)).toEqual(before);
    expect(h.logs.lines.filter((l) => l.level === 50)).toEqual([]);
  });

  it("operators, quotes and emoji around a word search for the word", async () => {
    const titles = async (query: string) =>
      ((await h.call("search_notes", { query })).structuredContent as { result: Array<{ title: string }> }).result.map(
        (r) => r.title,
      );
    const milk = await titles("milk");
    expect(milk).toEqual(["groceries", "pancake recipe"]);
    for (const query of ['"milk', 'milk"', "-milk", "milk*", "*milk", "(milk", "🥛 milk", "^milk", "  milk  "]) {
      expect(await titles(query), query).toEqual(milk);
    }
    expect(await titles("NEAR(milk eggs)")).toEqual([]);
    expect(await titles("title:groceries")).toEqual([]);
    expect(await titles("'; DROP TABLE notes; --")).toEqual([]);
  });

  it("only-punctuation queries get the words hint; too long ones the length hint", async () => {
    for (const query of ['"', "*", "()", "🎉", "%", "\\"]) {
      const result = await h.call("search_notes", { query });
      expect(errorMeta(result)).toMatchObject({ kind: "validation", code: "invalid_arguments" });
      expect(text(result)).toContain("has no words to search for");
    }
    expect(text(await h.call("search_notes", { query: "x".repeat(501) }))).toBe(
      "Invalid arguments for tool search_notes:\nquery: must be at most 500 characters (got 501)",
    );
  });
});
