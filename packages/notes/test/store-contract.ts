// The behaviour every NotesStore must have, written against the interface only, so a
// PostgreSQL (or any other) implementation runs the same suite.

import { ConflictError, InvalidArgumentsError } from "@toolshed/errors";
import { encodeCursor } from "@toolshed/storage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NotesStore } from "../src/store.js";

export interface StoreUnderTest {
  store: NotesStore;
  cleanup: () => Promise<void> | void;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Every title the store lists, following cursors to the end. */
async function allTitles(store: NotesStore, tag?: string, limit = 3): Promise<string[]> {
  const titles: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const result = await store.listNotes({ tag, limit, cursor });
    titles.push(...result.notes.map((n) => n.title));
    if (result.next_cursor === null) return titles;
    cursor = result.next_cursor;
  }
  throw new Error("listNotes never reached the last page");
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}
export function describeNotesStoreContract(label: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`NotesStore contract: ${label}`, () => {
    let store: NotesStore;
    let cleanup: StoreUnderTest["cleanup"];

    beforeEach(async () => {
      ({ store, cleanup } = await makeStore());
    });

    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    describe("createNote and getNote", () => {
      it("creates a note at version 1 with normalized tags and equal ISO timestamps; getNote returns the same", async () => {
        const created = await store.createNote({
          title: "groceries",
          body: "milk, eggs",
          tags: ["Shopping", " home ", "shopping", ""],
        });
        expect(created).toEqual({
          title: "groceries",
          body: "milk, eggs",
          tags: ["home", "shopping"],
          version: 1,
          created_at: created.created_at,
          updated_at: created.created_at,
        });
        expect(created.created_at).toMatch(ISO);
        expect(await store.getNote("groceries")).toEqual(created);
      });

      it("tags are optional and default to none; an empty body is allowed", async () => {
        const created = await store.createNote({ title: "blank", body: "" });
        expect(created.tags).toEqual([]);
        expect((await store.getNote("blank"))?.body).toBe("");
      });

      it("getNote is exact: another title, another case or a prefix is undefined", async () => {
        await store.createNote({ title: "groceries", body: "milk" });
        expect(await store.getNote("grocries")).toBeUndefined();
        expect(await store.getNote("Groceries")).toBeUndefined();
        expect(await store.getNote("groc")).toBeUndefined();
      });

      it("keeps any text as it is: quotes, newlines, emoji, SQL", async () => {
        const title = `it's "quoted" 🎉 '; DROP TABLE notes; --`;
        const body = "line 1\nline 2\t'x' \"y\" % _ \\ 日本語";
        await store.createNote({ title, body });
        expect((await store.getNote(title))?.body).toBe(body);
      });

      it("a title that exists is a ConflictError that points to update_note, and writes nothing", async () => {
        await store.createNote({ title: "groceries", body: "milk", tags: ["a"] });
        const error = await rejection(store.createNote({ title: "groceries", body: "bread", tags: ["b"] }));
        expect(error).toBeInstanceOf(ConflictError);
        expect(error.message).toBe("A note titled 'groceries' already exists; use update_note to change it");
        const note = await store.getNote("groceries");
        expect(note?.body).toBe("milk");
        expect(note?.tags).toEqual(["a"]);
      });
    });

    describe("idempotency keys", () => {
      it("the same key and note return the first result and create nothing new", async () => {
        const first = await store.createNote({ title: "a", body: "x", tags: ["t"] }, { idempotencyKey: "k1" });
        const again = await store.createNote({ title: "a", body: "x", tags: ["t"] }, { idempotencyKey: "k1" });
        expect(again).toEqual(first);
        expect(await allTitles(store)).toEqual(["a"]);
      });

      it("tag order, case and duplicates do not make another request", async () => {
        const first = await store.createNote({ title: "a", body: "x", tags: ["b", "a"] }, { idempotencyKey: "k" });
        const again = await store.createNote({ title: "a", body: "x", tags: ["A", "b", "a"] }, { idempotencyKey: "k" });
        expect(again).toEqual(first);
      });

      it("the same key with another note is a ConflictError and writes nothing", async () => {
        await store.createNote({ title: "a", body: "x" }, { idempotencyKey: "k1" });
        const error = await rejection(store.createNote({ title: "b", body: "y" }, { idempotencyKey: "k1" }));
        expect(error).toBeInstanceOf(ConflictError);
        expect(error.message).toBe(
          "idempotency_key 'k1' was already used with different arguments; use a new key for a new request, or repeat the original arguments",
        );
        expect(await allTitles(store)).toEqual(["a"]);
      });

      it("a repeat answers the first result even after the note changed or was deleted, and does not recreate it", async () => {
        const first = await store.createNote({ title: "a", body: "x" }, { idempotencyKey: "k" });
        await store.updateNote("a", { body: "changed" });
        expect(await store.createNote({ title: "a", body: "x" }, { idempotencyKey: "k" })).toEqual(first);
        await store.deleteNote("a");
        expect(await store.createNote({ title: "a", body: "x" }, { idempotencyKey: "k" })).toEqual(first);
        expect(await store.getNote("a")).toBeUndefined();
      });

      it("a failed create records no key: after a title conflict the same key works once the title is free", async () => {
        await store.createNote({ title: "a", body: "old" });
        await rejection(store.createNote({ title: "a", body: "new" }, { idempotencyKey: "k" }));
        await store.deleteNote("a");
        const created = await store.createNote({ title: "a", body: "new" }, { idempotencyKey: "k" });
        expect(created.body).toBe("new");
      });

      it("20 racing creates with one key make one note and all get the same answer", async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, () =>
            store.createNote({ title: "race", body: "once", tags: ["x"] }, { idempotencyKey: "race-key" }),
          ),
        );
        for (const result of results) expect(result).toEqual(results[0]);
        expect(await allTitles(store)).toEqual(["race"]);
      });

      it("keys are separate from titles: two keys for two notes both work", async () => {
        await store.createNote({ title: "a", body: "x" }, { idempotencyKey: "k1" });
        await store.createNote({ title: "b", body: "x" }, { idempotencyKey: "k2" });
        expect(await allTitles(store)).toEqual(["a", "b"]);
      });
    });

    describe("updateNote", () => {
      beforeEach(async () => {
        await store.createNote({ title: "todo", body: "call mom", tags: ["home"] });
      });

      it("a new body keeps the tags, adds 1 to the version and moves updated_at", async () => {
        const before = await store.getNote("todo");
        const updated = await store.updateNote("todo", { body: "call mom and dad" });
        expect(updated).toMatchObject({ title: "todo", body: "call mom and dad", tags: ["home"], version: 2 });
        expect(updated?.created_at).toBe(before?.created_at);
        expect(updated?.updated_at).toMatch(ISO);
        expect((updated?.updated_at ?? "") >= (before?.updated_at ?? "")).toBe(true);
        expect(await store.getNote("todo")).toEqual(updated);
      });

      it("new tags replace all tags and keep the body; [] removes them", async () => {
        expect(await store.updateNote("todo", { tags: ["Family", "urgent", "family"] })).toMatchObject({
          body: "call mom",
          tags: ["family", "urgent"],
          version: 2,
        });
        expect(await store.updateNote("todo", { tags: [] })).toMatchObject({ tags: [], version: 3 });
        expect(await allTitles(store, "family")).toEqual([]);
      });

      it("the matching expected version succeeds; a stale one is a ConflictError naming the current version", async () => {
        expect((await store.updateNote("todo", { body: "v2" }, { expectedVersion: 1 }))?.version).toBe(2);
        const error = await rejection(store.updateNote("todo", { body: "lost" }, { expectedVersion: 1 }));
        expect(error).toBeInstanceOf(ConflictError);
        expect(error.message).toBe(
          "Note 'todo' is at version 2, not 1: it changed since you read it. Read it again with get_note, then retry with expected_version 2",
        );
        expect(await store.getNote("todo")).toMatchObject({ body: "v2", version: 2 });
      });

      it("an unknown title is undefined and changes nothing", async () => {
        expect(await store.updateNote("nope", { body: "x" })).toBeUndefined();
        expect(await allTitles(store)).toEqual(["todo"]);
      });
    });

    describe("deleteNote", () => {
      it("deletes the note, its tags and its search entry; a second delete is false", async () => {
        await store.createNote({ title: "todo", body: "call mom", tags: ["home"] });
        expect(await store.deleteNote("todo")).toBe(true);
        expect(await store.getNote("todo")).toBeUndefined();
        expect(await allTitles(store, "home")).toEqual([]);
        expect(await store.searchNotes("mom", { limit: 10 })).toEqual([]);
        expect(await store.deleteNote("todo")).toBe(false);
      });

      it("a deleted title can be created again, at version 1", async () => {
        await store.createNote({ title: "todo", body: "a" });
        await store.updateNote("todo", { body: "b" });
        await store.deleteNote("todo");
        expect((await store.createNote({ title: "todo", body: "c" })).version).toBe(1);
      });
    });

    describe("searchNotes", () => {
      beforeEach(async () => {
        await store.createNote({ title: "groceries", body: "milk, eggs" });
        await store.createNote({ title: "pancakes", body: "flour, two eggs, a cup of milk and some sugar" });
        await store.createNote({ title: "milk run", body: "buy bread on the way home" });
        await store.createNote({ title: "café", body: "Crème brûlée and coffee" });
      });

      it("ranks title matches above body matches and marks matched words in the snippet", async () => {
        const hits = await store.searchNotes("milk", { limit: 10 });
        expect(hits.map((h) => h.title)).toEqual(["milk run", "groceries", "pancakes"]);
        expect(hits[1]).toEqual({
          title: "groceries",
          snippet: "**milk**, eggs",
          updated_at: (await store.getNote("groceries"))?.updated_at,
        });
        expect(hits[2]?.snippet).toBe("flour, two eggs, a cup of **milk** and some sugar");
      });

      it("every word must match, words match by prefix and case and accents do not matter", async () => {
        expect((await store.searchNotes("MILK eggs", { limit: 10 })).map((h) => h.title)).toEqual([
          "groceries",
          "pancakes",
        ]);
        expect((await store.searchNotes("panc", { limit: 10 })).map((h) => h.title)).toEqual(["pancakes"]);
        expect((await store.searchNotes("creme brulee", { limit: 10 })).map((h) => h.title)).toEqual(["café"]);
        expect(await store.searchNotes("caviar", { limit: 10 })).toEqual([]);
      });

      it("honours the limit", async () => {
        expect(await store.searchNotes("milk", { limit: 2 })).toHaveLength(2);
      });

      it("punctuation splits words: codes, versions, paths, addresses and underscores are found by their parts", async () => {
        await store.createNote({
          title: "deploy log",
          body: "Error code ERR-4581 in v2.18 of api/v3, mail ops@example.com, key max_retries",
        });
        for (const query of ["4581", "err 4581", "18", "v2", "v3", "example", "retries", "max"]) {
          expect(
            (await store.searchNotes(query, { limit: 10 })).map((h) => h.title),
            query,
          ).toEqual(["deploy log"]);
        }
      });

      it("any text is a safe query: operators and quotes are words, no words finds nothing", async () => {
        for (const query of ['"', 'milk"', "*", "-milk", "milk OR", "NEAR(", "(", "{title}:", "🎉", "", "   "]) {
          const hits = await store.searchNotes(query, { limit: 10 });
          expect(Array.isArray(hits)).toBe(true);
        }
        expect(await store.searchNotes("***", { limit: 10 })).toEqual([]);
        expect((await store.searchNotes('"milk', { limit: 10 })).map((h) => h.title)).toEqual([
          "milk run",
          "groceries",
          "pancakes",
        ]);
      });

      it("follows updates: new words are found and old ones are gone", async () => {
        await store.updateNote("groceries", { body: "bread, butter" });
        expect((await store.searchNotes("butter", { limit: 10 })).map((h) => h.title)).toEqual(["groceries"]);
        expect((await store.searchNotes("milk", { limit: 10 })).map((h) => h.title)).toEqual(["milk run", "pancakes"]);
      });
    });

    describe("listNotes", () => {
      const titles = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"];

      beforeEach(async () => {
        for (const [i, title] of [...titles].reverse().entries()) {
          await store.createNote({ title, body: title, tags: i % 2 === 0 ? ["even"] : ["odd"] });
        }
      });

      it("pages through every note once, in title order, with tags and updated_at", async () => {
        const first = await store.listNotes({ limit: 3 });
        expect(first.notes).toEqual([
          { title: "alpha", tags: ["even"], updated_at: (await store.getNote("alpha"))?.updated_at },
          { title: "bravo", tags: ["odd"], updated_at: (await store.getNote("bravo"))?.updated_at },
          { title: "charlie", tags: ["even"], updated_at: (await store.getNote("charlie"))?.updated_at },
        ]);
        expect(typeof first.next_cursor).toBe("string");
        expect(await allTitles(store, undefined, 3)).toEqual(titles);
        expect(await allTitles(store, undefined, 7)).toEqual(titles);
        expect(await store.listNotes({ limit: 7 })).toMatchObject({ next_cursor: null });
      });

      it("filters by tag, case-insensitively, and pages within the tag", async () => {
        expect(await allTitles(store, "even", 2)).toEqual(["alpha", "charlie", "echo", "golf"]);
        expect(await allTitles(store, "ODD", 2)).toEqual(["bravo", "delta", "foxtrot"]);
        expect(await store.listNotes({ tag: "none", limit: 5 })).toEqual({ notes: [], next_cursor: null });
      });

      it("keyset pages stay stable when notes are added before the cursor", async () => {
        const first = await store.listNotes({ limit: 3 });
        await store.createNote({ title: "aardvark", body: "" });
        const second = await store.listNotes({ limit: 3, cursor: first.next_cursor ?? undefined });
        expect(second.notes.map((n) => n.title)).toEqual(["delta", "echo", "foxtrot"]);
      });

      it("an empty store is one empty page", async () => {
        for (const title of titles) await store.deleteNote(title);
        expect(await store.listNotes({ limit: 10 })).toEqual({ notes: [], next_cursor: null });
      });

      it("a cursor it did not hand out is an InvalidArgumentsError", async () => {
        for (const cursor of ["garbage", "eyJ4IjoxfQ", encodeCursor({ x: 1 })]) {
          const error = await rejection(store.listNotes({ limit: 3, cursor }));
          expect(error).toBeInstanceOf(InvalidArgumentsError);
          expect(error.message).toBe(
            "cursor is not valid; pass next_cursor from the previous page unchanged, or omit it",
          );
        }
      });

      it("a cursor from the list of another tag is an InvalidArgumentsError that says which", async () => {
        const page = await store.listNotes({ tag: "even", limit: 1 });
        const error = await rejection(store.listNotes({ tag: "odd", limit: 1, cursor: page.next_cursor ?? "" }));
        expect(error).toBeInstanceOf(InvalidArgumentsError);
        expect(error.message).toBe(
          "cursor belongs to list_notes with tag 'even'; pass tag 'even' with this cursor, or omit the cursor to start over",
        );
        const untagged = await store.listNotes({ limit: 1 });
        const other = await rejection(store.listNotes({ tag: "odd", limit: 1, cursor: untagged.next_cursor ?? "" }));
        expect(other.message).toBe(
          "cursor belongs to list_notes without a tag; omit tag with this cursor, or omit the cursor to start over",
        );
      });
    });

    describe("title look-ups for hints and completion", () => {
      beforeEach(async () => {
        for (const title of ["groceries", "Grocery budget", "garden", "todo", "100%_done", "weekly review"]) {
          await store.createNote({ title, body: "" });
        }
      });

      it("titlesWithPrefix matches the start case-insensitively, in title order, bounded, with % and _ literal", async () => {
        expect(await store.titlesWithPrefix("gro", 10)).toEqual(["Grocery budget", "groceries"]);
        expect(await store.titlesWithPrefix("g", 2)).toHaveLength(2);
        expect(await store.titlesWithPrefix("100%_", 10)).toEqual(["100%_done"]);
        expect(await store.titlesWithPrefix("%", 10)).toEqual([]);
        expect(await store.titlesWithPrefix("_", 10)).toEqual([]);
        expect(await store.titlesWithPrefix("", 3)).toHaveLength(3);
      });

      it("titlesNear includes title-order neighbours and titles sharing a word, at most limit", async () => {
        expect(await store.titlesNear("grocries", 20)).toContain("groceries");
        expect(await store.titlesNear("review", 20)).toContain("weekly review");
        expect((await store.titlesNear("g", 2)).length).toBeLessThanOrEqual(2);
        expect(await store.titlesNear("🎉 \"' OR", 20)).toEqual(expect.any(Array));
      });
    });
  });
}
