// The two tools every contender serves, defined once so that each framework gets the same Zod
// schemas, the same SQL and the same answers: `add(a, b)` and `get_note(title)`.
import { openSqlite } from "@toolshed/storage";
import { z } from "zod";

export const ADD = {
  name: "add",
  description: "Add two numbers and return their sum.",
  input: z.object({
    a: z.number().describe("First number"),
    b: z.number().describe("Second number"),
  }),
  output: z.object({ sum: z.number().describe("a + b") }),
};

// The notes pack's get_note schemas, restated (the pack does not export them).
export const GET_NOTE = {
  name: "get_note",
  description: "Return one note by its exact title: its body and word count.",
  input: z.object({
    title: z.string().trim().min(1).max(200).describe("Exact title of the note, e.g. groceries"),
  }),
  output: z.object({
    title: z.string().describe("Title of the note"),
    body: z.string().describe("Text of the note (markdown)"),
    words: z.number().int().min(0).describe("Number of whitespace-separated words in the body"),
  }),
};

export function add({ a, b }) {
  return { sum: a + b };
}

// The notes store's own query (SqliteNotesStore#getNote), so every contender does the same work.
const GET_NOTE_SQL = `SELECT n.id, n.title, n.body, n.version, n.created_at, n.updated_at,
  (SELECT json_group_array(tag) FROM (SELECT tag FROM note_tags WHERE note_id = n.id ORDER BY tag)) AS tags
  FROM notes n WHERE n.title = ?`;

/** get_note over the notes table of `dbPath`; returns undefined for an unknown title. */
export function openNoteReader(dbPath) {
  const db = openSqlite(dbPath);
  const statement = db.prepare(GET_NOTE_SQL);
  return {
    get(title) {
      const row = statement.get(title);
      if (!row) return undefined;
      const trimmed = row.body.trim();
      return { title: row.title, body: row.body, words: trimmed === "" ? 0 : trimmed.split(/\s+/u).length };
    },
    close: () => db.close(),
  };
}

/** A tools/call result as the SDK and Toolshed shape it: structured content plus its JSON text. */
export function structuredResult(value) {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/** The `--name value` flags a contender process is started with. */
export function argsOf(argv = process.argv.slice(2)) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, "")] = argv[i + 1];
  return out;
}

/** Tells the parent where the server listens: the one line it waits for on stdout. */
export function announce(url) {
  process.stdout.write(`READY ${url}\n`);
}

export const NOTE_MISSING = (title) => `No note '${title}'`;
