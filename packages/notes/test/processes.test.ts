import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { SqliteNotesStore } from "../src/sqlite/store.js";
import { tempDir } from "./helpers.js";

const run = promisify(execFile);
const worker = new URL("./race-worker.mjs", import.meta.url).pathname;

// Needs the built package (npx tsup): the workers import @toolshed/notes from dist.
it("4 processes racing creates with one idempotency key on one file make one note and agree", async () => {
  const tmp = tempDir();
  const file = join(tmp.dir, "shared.db");
  SqliteNotesStore.open(file).close();
  const startAt = String(Date.now() + 1500);
  const outputs = await Promise.all(
    Array.from({ length: 4 }, () => run(process.execPath, [worker, file, startAt, "race-key"], { timeout: 20_000 })),
  );
  const answers = outputs.flatMap((o) => JSON.parse(o.stdout) as unknown[]);
  expect(answers).toHaveLength(20);
  for (const answer of answers) expect(answer).toEqual(answers[0]);
  const store = SqliteNotesStore.open(file);
  expect((await store.listNotes({ limit: 10 })).notes.map((n) => n.title)).toEqual(["race"]);
  await store.close();
  tmp.cleanup();
}, 30_000);
