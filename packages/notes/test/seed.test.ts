import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_NOTES } from "../src/demo-notes.js";
import { seedDemo } from "../src/seed.js";
import { SqliteNotesStore } from "../src/sqlite/store.js";
import { tempDir } from "./helpers.js";

async function countNotes(store: SqliteNotesStore): Promise<number> {
  let total = 0;
  let cursor: string | undefined;
  do {
    const page = await store.listNotes({ limit: 100, cursor });
    total += page.notes.length;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return total;
}

describe("seedDemo", () => {
  it("fills a store with a few dozen notes, including the documented groceries note", async () => {
    const store = SqliteNotesStore.open(":memory:");
    expect(await seedDemo(store)).toEqual({ created: DEMO_NOTES.length });
    expect(DEMO_NOTES.length).toBeGreaterThanOrEqual(24);
    expect(await countNotes(store)).toBe(DEMO_NOTES.length);
    expect(await store.getNote("groceries")).toMatchObject({ body: "milk, eggs", tags: ["home", "shopping"] });
    expect((await store.listNotes({ tag: "work", limit: 100 })).notes.length).toBeGreaterThan(5);
    await store.close();
  });

  it("is idempotent: a second call creates nothing and changes nothing", async () => {
    const store = SqliteNotesStore.open(":memory:");
    await seedDemo(store);
    await store.updateNote("todo", { body: "call mom tonight" });
    expect(await seedDemo(store)).toEqual({ created: 0 });
    expect(await countNotes(store)).toBe(DEMO_NOTES.length);
    expect((await store.getNote("todo"))?.body).toBe("call mom tonight");
    await store.close();
  });

  it("two stores seeding one file at once create each note once", async () => {
    const tmp = tempDir();
    const file = join(tmp.dir, "demo.db");
    const a = SqliteNotesStore.open(file);
    const b = SqliteNotesStore.open(file);
    const [ra, rb] = await Promise.all([seedDemo(a), seedDemo(b)]);
    expect(ra.created + rb.created).toBe(DEMO_NOTES.length);
    expect(await countNotes(a)).toBe(DEMO_NOTES.length);
    await a.close();
    await b.close();
    tmp.cleanup();
  });

  it("demo notes keep to the limits the tools enforce", () => {
    const titles = new Set(DEMO_NOTES.map((n) => n.title));
    expect(titles.size).toBe(DEMO_NOTES.length);
    for (const note of DEMO_NOTES) {
      expect(note.title.trim()).toBe(note.title);
      expect(note.title.length).toBeLessThanOrEqual(200);
      for (const tag of note.tags ?? []) expect(tag).toMatch(/^[a-z0-9-]{1,40}$/);
    }
  });
});
