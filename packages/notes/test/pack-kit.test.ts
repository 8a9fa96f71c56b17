// The notes pack through the pack authors' kit (@toolshed/testing): fuzzed from its published
// schemas, its contract held to contract.snapshot.json, and a few calls asserted.
import { fileURLToPath } from "node:url";
import { type TempDir, tempDir } from "@toolshed/test-support";
import {
  checkPackContract,
  connectPack,
  expectInvalidArguments,
  expectToolError,
  expectToolResult,
  fuzzPack,
} from "@toolshed/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEMO_NOTES, notesPack, SqliteNotesStore, seedDemo } from "../src/index.js";

const SNAPSHOT = fileURLToPath(new URL("../contract.snapshot.json", import.meta.url));

let dir: TempDir;
let store: SqliteNotesStore;

beforeEach(async () => {
  dir = tempDir("toolshed-notes-kit-");
  store = SqliteNotesStore.open(dir.file("notes.db"));
  await seedDemo(store);
});

afterEach(async () => {
  await store.close();
  dir.remove();
});

describe("the notes pack through @toolshed/testing", () => {
  it("answers generated and hostile arguments with results or hint errors, in both eras", async () => {
    const report = await fuzzPack(notesPack({ store }), {
      seed: 20_250_301,
      runs: 120,
      allowWrites: true,
      knownValues: DEMO_NOTES.slice(0, 6).map((n) => n.title),
    });
    expect(report.tools).toHaveLength(6);
    expect(report.failures).toEqual([]);
  }, 120_000);

  it("publishes what contract.snapshot.json says", async () => {
    expect(await checkPackContract(notesPack({ store }), SNAPSHOT)).toEqual([]);
  });

  it("gets a note, names the known titles for a missing one, and hints at a bad limit", async () => {
    await using conn = await connectPack(notesPack({ store }), { era: "2026-07-28" });
    const title = (DEMO_NOTES[0] as { title: string }).title;
    const note = expectToolResult<{ title: string; words: number }>(await conn.call("get_note", { title }));
    expect(note.title).toBe(title);
    expect(note.words).toBeGreaterThan(0);
    const missing = expectToolError(await conn.call("get_note", { title: "no such note" }), {
      code: "not_found",
      retryable: false,
    });
    expect(missing.text).toMatch(/^Error executing tool get_note: No note 'no such note'/);
    expect(
      expectInvalidArguments(await conn.call("search_notes", { query: "milk", limit: 999 }), "limit").message,
    ).toBe("must be at most 50 (got 999)");
  });
});
