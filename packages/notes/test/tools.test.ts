import { openSqlite } from "@toolshed/storage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorMeta, type Harness, startHarness, text } from "./helpers.js";

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.store.createNote({ title: "groceries", body: "milk, eggs", tags: ["home", "shopping"] }); // 09:00
  await h.store.createNote({ title: "todo", body: "call mom", tags: ["home"] }); // 09:01
});

afterEach(async () => {
  await h.close();
});

const notFound = { kind: "tool", code: "not_found", retryable: false };
const conflict = { kind: "tool", code: "conflict", retryable: false };

async function addNotes(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await h.store.createNote({ title: `note ${String(i).padStart(2, "0")}`, body: `body ${i}` });
  }
}

describe("definitions", () => {
  it("publishes the six tools with truthful annotations", async () => {
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => [t.name, t.annotations])).toEqual([
      ["get_note", { title: "Get note", readOnlyHint: true, openWorldHint: false }],
      ["search_notes", { title: "Search notes", readOnlyHint: true, openWorldHint: false }],
      ["list_notes", { title: "List notes", readOnlyHint: true, openWorldHint: false }],
      [
        "create_note",
        {
          title: "Create note",
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
      ],
      [
        "update_note",
        {
          title: "Update note",
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: false,
        },
      ],
      [
        "delete_note",
        {
          title: "Delete note",
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: true,
          openWorldHint: false,
        },
      ],
    ]);
  });

  it("every input property has a description and bounds; get_note's output is {title, body, words}", async () => {
    const { tools } = await h.client.listTools();
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(20);
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${tool.name}.${name}`).toMatch(/\w/);
      }
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.get_note?.outputSchema?.required).toEqual(["title", "body", "words"]);
    expect(byName.search_notes?.inputSchema.properties?.limit).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 50,
      default: 10,
      description: "Most notes to return, best match first",
    });
    expect(byName.list_notes?.inputSchema.properties?.limit).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(byName.create_note?.inputSchema.properties?.idempotency_key).toMatchObject({
      type: "string",
      minLength: 1,
      maxLength: 200,
    });
    expect(byName.create_note?.inputSchema.properties?.tags).toMatchObject({
      type: "array",
      maxItems: 20,
      items: { type: "string", minLength: 1, maxLength: 40 },
    });
    expect(byName.create_note?.inputSchema.required).toEqual(["title", "body"]);
    expect(byName.search_notes?.outputSchema).toMatchObject({ type: "object", required: ["result"] });
  });
});

describe("get_note", () => {
  it("returns exactly {title, body, words} as structured content and text (C1)", async () => {
    const result = await h.call("get_note", { title: "groceries" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(text(result)).toBe(JSON.stringify({ title: "groceries", body: "milk, eggs", words: 2 }, null, 2));
  });

  it("trims the title and counts words of any whitespace; an empty body has 0 words", async () => {
    await h.store.createNote({ title: "spaced", body: "  one\ttwo\n\nthree  " });
    await h.store.createNote({ title: "empty", body: "" });
    expect((await h.call("get_note", { title: "  spaced " })).structuredContent).toMatchObject({ words: 3 });
    expect((await h.call("get_note", { title: "empty" })).structuredContent).toEqual({
      title: "empty",
      body: "",
      words: 0,
    });
  });

  it("an unknown title in a small store lists every title (C8)", async () => {
    const result = await h.call("get_note", { title: "nope" });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("Error executing tool get_note: No note 'nope'. Known titles: groceries, todo");
    expect(errorMeta(result)).toEqual(notFound);
    expect(result.structuredContent).toBeUndefined();
  });

  it("an unknown title in a larger store names the closest titles only", async () => {
    await addNotes(12);
    const typo = await h.call("get_note", { title: "grocries" });
    expect(text(typo)).toBe("Error executing tool get_note: No note 'grocries'. Closest titles: groceries");
    const part = await h.call("get_note", { title: "note 1" });
    expect(text(part)).toBe(
      "Error executing tool get_note: No note 'note 1'. Closest titles: note 10, note 11, note 01, note 00, note 02",
    );
    const far = await h.call("get_note", { title: "xylophone" });
    expect(text(far)).toBe(
      "Error executing tool get_note: No note 'xylophone', and no title is close; find notes with search_notes or list_notes",
    );
    expect(errorMeta(far)).toEqual(notFound);
  });

  it("an empty store says how to make the first note", async () => {
    await h.store.deleteNote("groceries");
    await h.store.deleteNote("todo");
    expect(text(await h.call("get_note", { title: "x" }))).toBe(
      "Error executing tool get_note: No note 'x'. There are no notes yet; create one with create_note",
    );
  });

  it("a missing, empty or too long title is a validation error (C6)", async () => {
    expect(text(await h.call("get_note", {}))).toBe(
      "Invalid arguments for tool get_note:\ntitle: is required (a string)",
    );
    expect(text(await h.call("get_note", { title: "   " }))).toBe(
      "Invalid arguments for tool get_note:\ntitle: must not be empty",
    );
    expect(text(await h.call("get_note", { title: "x".repeat(201) }))).toBe(
      "Invalid arguments for tool get_note:\ntitle: must be at most 200 characters (got 201)",
    );
  });
});

describe("search_notes", () => {
  it("returns ranked hits wrapped as {result} (C2), text is the JSON array", async () => {
    await h.store.createNote({ title: "milk run", body: "bread too" }); // 09:02
    const result = await h.call("search_notes", { query: "milk" });
    const hits = [
      { title: "milk run", snippet: "bread too", updated_at: "2025-03-01T09:02:00.000Z" },
      { title: "groceries", snippet: "**milk**, eggs", updated_at: "2025-03-01T09:00:00.000Z" },
    ];
    expect(result.structuredContent).toEqual({ result: hits });
    expect(JSON.parse(text(result))).toEqual(hits);
  });

  it("limits results; default limit is 10", async () => {
    await addNotes(14);
    const hits = async (args: Record<string, unknown>) =>
      ((await h.call("search_notes", args)).structuredContent as { result: unknown[] }).result;
    expect(await hits({ query: "body" })).toHaveLength(10);
    expect(await hits({ query: "body", limit: 3 })).toHaveLength(3);
  });

  it("no match is an empty list, not an error", async () => {
    const result = await h.call("search_notes", { query: "caviar" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: [] });
  });

  it("a query with no words is a hint, and an empty one a validation error", async () => {
    const result = await h.call("search_notes", { query: "*** --" });
    expect(text(result)).toBe(
      'Invalid arguments for tool search_notes:\nquery "*** --" has no words to search for; use letters or digits (operators and punctuation are ignored), or browse with list_notes',
    );
    expect(errorMeta(result)).toEqual({
      kind: "validation",
      code: "invalid_arguments",
      retryable: false,
      issues: [{ path: "query", message: "must contain at least one letter or digit" }],
    });
    expect(text(await h.call("search_notes", { query: "  " }))).toBe(
      "Invalid arguments for tool search_notes:\nquery: must not be empty",
    );
  });

  it("limit out of range is a hint (C6)", async () => {
    expect(text(await h.call("search_notes", { query: "milk", limit: 51 }))).toBe(
      "Invalid arguments for tool search_notes:\nlimit: must be at most 50 (got 51)",
    );
    expect(text(await h.call("search_notes", { query: "milk", limit: 0 }))).toBe(
      "Invalid arguments for tool search_notes:\nlimit: must be at least 1 (got 0)",
    );
  });
});

describe("list_notes", () => {
  it("lists notes in title order with tags and updated_at; one page has next_cursor null", async () => {
    const result = await h.call("list_notes");
    expect(result.structuredContent).toEqual({
      notes: [
        { title: "groceries", tags: ["home", "shopping"], updated_at: "2025-03-01T09:00:00.000Z" },
        { title: "todo", tags: ["home"], updated_at: "2025-03-01T09:01:00.000Z" },
      ],
      next_cursor: null,
    });
  });

  it("pages with an opaque cursor until next_cursor is null; default page is 20", async () => {
    await addNotes(23);
    const first = await h.call("list_notes");
    const firstPage = first.structuredContent as { notes: Array<{ title: string }>; next_cursor: string };
    expect(firstPage.notes).toHaveLength(20);
    expect(firstPage.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = (await h.call("list_notes", { cursor: firstPage.next_cursor })).structuredContent as {
      notes: Array<{ title: string }>;
      next_cursor: string | null;
    };
    expect(second.notes.map((n) => n.title)).toEqual(["note 19", "note 20", "note 21", "note 22", "todo"]);
    expect(second.next_cursor).toBeNull();
    expect(new Set([...firstPage.notes, ...second.notes].map((n) => n.title)).size).toBe(25);
  });

  it("filters by tag, case-insensitively", async () => {
    const result = await h.call("list_notes", { tag: "SHOPPING" });
    expect(result.structuredContent).toEqual({
      notes: [{ title: "groceries", tags: ["home", "shopping"], updated_at: "2025-03-01T09:00:00.000Z" }],
      next_cursor: null,
    });
    const paged = (await h.call("list_notes", { tag: "home", limit: 1 })).structuredContent as {
      notes: Array<{ title: string }>;
      next_cursor: string;
    };
    expect(paged.notes.map((n) => n.title)).toEqual(["groceries"]);
    const rest = await h.call("list_notes", { tag: "home", limit: 1, cursor: paged.next_cursor });
    expect(rest.structuredContent).toMatchObject({ notes: [{ title: "todo" }], next_cursor: null });
  });

  it("a bad cursor or one from another tag's list is a hint (invalid_arguments)", async () => {
    const bad = await h.call("list_notes", { cursor: "not-a-cursor" });
    expect(text(bad)).toBe(
      "Invalid arguments for tool list_notes:\ncursor is not valid; pass next_cursor from the previous page unchanged, or omit it",
    );
    expect(errorMeta(bad)).toMatchObject({ kind: "validation", code: "invalid_arguments", retryable: false });
    const page = (await h.call("list_notes", { tag: "home", limit: 1 })).structuredContent as { next_cursor: string };
    const other = await h.call("list_notes", { tag: "shopping", cursor: page.next_cursor });
    expect(text(other)).toBe(
      "Invalid arguments for tool list_notes:\ncursor belongs to list_notes with tag 'home'; pass tag 'home' with this cursor, or omit the cursor to start over",
    );
  });

  it("limit is bounded to 1-100", async () => {
    expect(text(await h.call("list_notes", { limit: 101 }))).toBe(
      "Invalid arguments for tool list_notes:\nlimit: must be at most 100 (got 101)",
    );
  });
});

describe("create_note", () => {
  it("creates the note and returns it with version 1, trimmed title and normalized tags", async () => {
    const result = await h.call("create_note", {
      title: "  weekly review ",
      body: "inbox zero, plan next week",
      tags: ["Work", "habits", "work"],
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      title: "weekly review",
      body: "inbox zero, plan next week",
      tags: ["habits", "work"],
      words: 5,
      version: 1,
      created_at: "2025-03-01T09:02:00.000Z",
      updated_at: "2025-03-01T09:02:00.000Z",
    });
    expect((await h.call("get_note", { title: "weekly review" })).structuredContent).toEqual({
      title: "weekly review",
      body: "inbox zero, plan next week",
      words: 5,
    });
  });

  it("a title that exists is a conflict whose hint names update_note", async () => {
    const result = await h.call("create_note", { title: "groceries", body: "bread" });
    expect(text(result)).toBe(
      "Error executing tool create_note: A note titled 'groceries' already exists; use update_note to change it",
    );
    expect(errorMeta(result)).toEqual(conflict);
    expect((await h.store.getNote("groceries"))?.body).toBe("milk, eggs");
  });

  it("bounds title, body, tags and idempotency_key (C6)", async () => {
    const result = await h.call("create_note", {
      title: "t".repeat(201),
      body: "b".repeat(100_001),
      tags: [...Array.from({ length: 21 }, (_, i) => `t${i}`)],
      idempotency_key: "",
    });
    expect(text(result)).toBe(
      [
        "Invalid arguments for tool create_note:",
        "title: must be at most 200 characters (got 201)",
        "body: must be at most 100000 characters (got 100001)",
        "tags: must have at most 20 items (got 21)",
        "idempotency_key: must not be empty",
      ].join("\n"),
    );
    expect(text(await h.call("create_note", { title: "x", body: "y", tags: ["a".repeat(41), " "] }))).toBe(
      [
        "Invalid arguments for tool create_note:",
        "tags[0]: must be at most 40 characters (got 41)",
        "tags[1]: must not be empty",
      ].join("\n"),
    );
    expect(text(await h.call("create_note", { title: "x" }))).toBe(
      "Invalid arguments for tool create_note:\nbody: is required (a string)",
    );
    expect((await h.store.listNotes({ limit: 10 })).notes).toHaveLength(2);
  });

  it("a 100000-character body and 20 tags fit", async () => {
    const body = "word ".repeat(20_000);
    const tags = Array.from({ length: 20 }, (_, i) => `tag-${String(i).padStart(2, "0")}`);
    const result = await h.call("create_note", { title: "big", body, tags });
    expect(result.structuredContent).toMatchObject({ title: "big", words: 20_000, tags, version: 1 });
    expect((await h.store.getNote("big"))?.body).toBe(body);
  });

  it("a busy database is a retryable unavailable error (C10)", async () => {
    const busy = await startHarness({ busyTimeoutMs: 20 });
    const other = openSqlite(busy.file);
    other.exec("BEGIN IMMEDIATE");
    try {
      const result = await busy.call("create_note", { title: "x", body: "y" });
      expect(text(result)).toMatch(
        /^Error executing tool create_note: the database is busy \(ref ([0-9a-f]{8})\); temporary failure, safe to retry$/,
      );
      const meta = errorMeta(result);
      expect(meta).toEqual({ kind: "tool", code: "unavailable", retryable: true, ref: expect.any(String) });
      const logged = busy.logs.lines.find((line) => line.ref === meta?.ref);
      expect(JSON.stringify(logged)).toContain("SQLITE_BUSY");
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect((await busy.call("create_note", { title: "x", body: "y" })).isError).toBeFalsy();
    await busy.close();
  });
});

describe("update_note", () => {
  it("replaces the body, keeps the tags, and bumps the version", async () => {
    const result = await h.call("update_note", { title: "todo", body: "call mom and dad" });
    expect(result.structuredContent).toEqual({
      title: "todo",
      body: "call mom and dad",
      tags: ["home"],
      words: 4,
      version: 2,
      created_at: "2025-03-01T09:01:00.000Z",
      updated_at: "2025-03-01T09:02:00.000Z",
    });
  });

  it("replaces only the tags when only tags are given; [] clears them", async () => {
    expect((await h.call("update_note", { title: "todo", tags: ["Family"] })).structuredContent).toMatchObject({
      body: "call mom",
      tags: ["family"],
      version: 2,
    });
    expect((await h.call("update_note", { title: "todo", tags: [] })).structuredContent).toMatchObject({
      tags: [],
      version: 3,
    });
  });

  it("needs body or tags: a cross-field hint", async () => {
    const result = await h.call("update_note", { title: "todo", expected_version: 1 });
    expect(text(result)).toBe(
      "Invalid arguments for tool update_note:\nbody: give body, tags or both; update_note needs something to change",
    );
    expect(errorMeta(result)).toMatchObject({ kind: "validation", code: "invalid_arguments" });
  });

  it("a matching expected_version succeeds; a stale one is a conflict that says the current version", async () => {
    expect(
      (await h.call("update_note", { title: "todo", body: "v2", expected_version: 1 })).structuredContent,
    ).toMatchObject({ version: 2 });
    const stale = await h.call("update_note", { title: "todo", body: "lost", expected_version: 1 });
    expect(text(stale)).toBe(
      "Error executing tool update_note: Note 'todo' is at version 2, not 1: it changed since you read it. Read it again with get_note, then retry with expected_version 2",
    );
    expect(errorMeta(stale)).toEqual(conflict);
    expect((await h.store.getNote("todo"))?.body).toBe("v2");
    expect(text(await h.call("update_note", { title: "todo", body: "x", expected_version: 0 }))).toBe(
      "Invalid arguments for tool update_note:\nexpected_version: must be at least 1 (got 0)",
    );
  });

  it("an unknown title is not_found with close titles", async () => {
    const result = await h.call("update_note", { title: "tood", body: "x" });
    expect(text(result)).toBe("Error executing tool update_note: No note 'tood'. Known titles: groceries, todo");
    expect(errorMeta(result)).toEqual(notFound);
    await addNotes(12);
    expect(text(await h.call("update_note", { title: "tood", body: "x" }))).toBe(
      "Error executing tool update_note: No note 'tood'. Closest titles: todo",
    );
  });
});

describe("delete_note", () => {
  it("deletes an existing note: {deleted: true}; then it is gone everywhere", async () => {
    const result = await h.call("delete_note", { title: "groceries" });
    expect(result.structuredContent).toEqual({ deleted: true });
    expect(text(result)).toBe(JSON.stringify({ deleted: true }, null, 2));
    expect((await h.call("get_note", { title: "groceries" })).isError).toBe(true);
    expect((await h.call("search_notes", { query: "milk" })).structuredContent).toEqual({ result: [] });
    expect((await h.call("list_notes", { tag: "shopping" })).structuredContent).toEqual({
      notes: [],
      next_cursor: null,
    });
  });

  it("deleting a missing note succeeds with {deleted: false}, again and again", async () => {
    for (let i = 0; i < 2; i++) {
      const result = await h.call("delete_note", { title: "nope" });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ deleted: false });
    }
    expect((await h.store.listNotes({ limit: 10 })).notes).toHaveLength(2);
  });
});
