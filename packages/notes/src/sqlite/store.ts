import { ConflictError, InvalidArgumentsError } from "@toolshed/errors";
import {
  checkIdempotencyRetention,
  decodeCursor,
  encodeCursor,
  escapeLike,
  type FtsSearchPhase,
  openSqliteStore,
  planFtsSearch,
  runIdempotent,
  type SqliteDatabase,
  type SqliteDriverChoice,
} from "@toolshed/storage";
import type { NewNote, Note, NoteChanges, NoteListPage, NoteSearchHit, NoteSummary, NotesStore } from "../store.js";
import { normalizeTags } from "../tags.js";
import { NOTES_MIGRATION_SCOPE, NOTES_SQLITE_MIGRATIONS } from "./migrations.js";

export interface SqliteNotesStoreOptions {
  /** How long a write waits for another connection's lock before failing as busy (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Clock for created_at and updated_at; tests pass a fixed one. */
  now?: () => Date;
  /**
   * Open an existing file without writing to it (no WAL switch, no migrations; its tables must be
   * current). Writes fail with a `failed_precondition` tool error.
   */
  readonly?: boolean;
  /** How long an idempotency key is remembered (default 24 hours; Infinity keeps keys forever). */
  idempotencyRetentionMs?: number;
  /** Which SQLite driver opens the file (default `auto`: node:sqlite on Node 22.16 or later, else better-sqlite3). */
  driver?: SqliteDriverChoice;
}

const prepare = (db: SqliteDatabase, sql: string) => db.prepare<unknown[]>(sql);
type Statement = ReturnType<typeof prepare>;

interface NoteRow {
  id: number;
  title: string;
  body: string;
  version: number;
  created_at: string;
  updated_at: string;
  tags: string;
}

interface SummaryRow {
  title: string;
  updated_at: string;
  tags: string;
}

// Tags of one note as a JSON array, sorted; used as a column so a page is one query.
const TAGS_COLUMN = `(SELECT json_group_array(tag) FROM (SELECT tag FROM note_tags WHERE note_id = n.id ORDER BY tag)) AS tags`;
// Built once: the statement cache is keyed by the text, and get_note is the hottest read.
const GET_NOTE_SQL = `SELECT n.id, n.title, n.body, n.version, n.created_at, n.updated_at, ${TAGS_COLUMN}
  FROM notes n WHERE n.title = ?`;
const IDEMPOTENCY_SCOPE = "notes.create_note";
const MAX_PAGE = 100;

function toNote(row: NoteRow): Note {
  return {
    title: row.title,
    body: row.body,
    tags: JSON.parse(row.tags) as string[],
    version: row.version,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toSummary(row: SummaryRow): NoteSummary {
  return { title: row.title, tags: JSON.parse(row.tags) as string[], updated_at: row.updated_at };
}

function clampLimit(limit: number): number {
  return Math.max(1, Math.min(MAX_PAGE, Math.floor(limit)));
}

/** An FTS5 query that matches any of the words of `text` in titles, or undefined when it has none. */
function titleWordsQuery(text: string): string | undefined {
  const words = text.normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return undefined;
  return `{title} : (${words
    .slice(0, 8)
    .map((w) => `"${w}"*`)
    .join(" OR ")})`;
}

// A word in more notes than this is common. bm25 reads the whole posting list of every term
// (it counts the rows each one is in), so a query with a common word is answered newest first
// instead, and a common word is not expanded to its longer forms: the work per query stays bounded.
const COMMON_ROWS = 2000;
const COMMON_PROBE_SQL = `SELECT 1 FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ${COMMON_ROWS}`;
// Title matches weigh more than body matches; ties go by row id so answers are repeatable.
const RANKED_IDS_SQL =
  "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY bm25(notes_fts, 10.0, 1.0), rowid LIMIT ?";
const NEWEST_IDS_SQL = "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rowid DESC LIMIT ?";
const HIT_COLUMNS = "n.id, n.title, snippet(notes_fts, 1, '**', '**', '…', 16) AS snippet, n.updated_at";
const HIT_SQL = `SELECT ${HIT_COLUMNS} FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid
  WHERE notes_fts MATCH ? AND notes_fts.rowid = ?`;
const HITS_BETWEEN_SQL = `SELECT ${HIT_COLUMNS} FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid
  WHERE notes_fts MATCH ? AND notes_fts.rowid BETWEEN ? AND ?`;

/**
 * NotesStore on SQLite (node:sqlite or better-sqlite3): WAL, FTS5 search ranked by bm25, every write in one
 * IMMEDIATE transaction, so several processes can share one file.
 */
export class SqliteNotesStore implements NotesStore {
  readonly #db: SqliteDatabase;
  readonly #now: () => Date;
  readonly #retentionMs: number;
  readonly #statements = new Map<string, Statement>();

  /** This store's tables, for checking a database's versions before any store opens it. */
  static readonly schema = { scope: NOTES_MIGRATION_SCOPE, migrations: NOTES_SQLITE_MIGRATIONS };

  private constructor(db: SqliteDatabase, now: () => Date, retentionMs: number) {
    this.#db = db;
    this.#now = now;
    this.#retentionMs = retentionMs;
  }

  /**
   * Opens (creating or upgrading in place) a notes database at a file path, or `:memory:`. A file
   * from a newer release is refused before anything is written to it.
   */
  static open(path: string, options: SqliteNotesStoreOptions = {}): SqliteNotesStore {
    const retentionMs = checkIdempotencyRetention(options.idempotencyRetentionMs);
    const db = openSqliteStore(path, {
      schema: SqliteNotesStore.schema,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      readonly: options.readonly ?? false,
      ...(options.driver === undefined ? {} : { driver: options.driver }),
    });
    return new SqliteNotesStore(db, options.now ?? (() => new Date()), retentionMs);
  }

  async getNote(title: string): Promise<Note | undefined> {
    return this.#getNow(title);
  }

  #getNow(title: string): Note | undefined {
    const row = this.#sql(GET_NOTE_SQL).get(title) as NoteRow | undefined;
    return row && toNote(row);
  }

  async searchNotes(query: string, options: { limit: number }): Promise<NoteSearchHit[]> {
    const limit = clampLimit(options.limit);
    // One read transaction: the plan, the ranked ids and the page are one snapshot.
    return this.#db.transaction(() => {
      const phases = planFtsSearch(query, (term) => this.#sql(COMMON_PROBE_SQL).get(term) !== undefined);
      const hits: NoteSearchHit[] = [];
      for (const phase of phases) {
        if (hits.length >= limit) break;
        // Rank inside the index and read only the page's ids: joins and snippets cost per row.
        const ids = this.#sql(phase.ranked ? RANKED_IDS_SQL : NEWEST_IDS_SQL)
          .pluck()
          .all(phase.match, limit - hits.length) as number[];
        hits.push(...this.#hits(phase, ids));
      }
      return hits;
    })();
  }

  async listNotes(options: { tag?: string; limit: number; cursor?: string }): Promise<NoteListPage> {
    const limit = clampLimit(options.limit);
    const tag = options.tag === undefined ? undefined : (normalizeTags([options.tag])[0] ?? "");
    let after = "";
    if (options.cursor !== undefined) {
      const position = decodeCursor(options.cursor, { after: "string", tag: "string" });
      if (position.tag !== (tag ?? "")) {
        const [was, fix] =
          position.tag === ""
            ? ["without a tag", "omit tag"]
            : [`with tag '${position.tag}'`, `pass tag '${position.tag}'`];
        throw new InvalidArgumentsError(
          `cursor belongs to list_notes ${was}; ${fix} with this cursor, or omit the cursor to start over`,
          [{ path: "cursor", message: `belongs to the list ${was}` }],
        );
      }
      after = String(position.after);
    }
    // Keyset pagination on the unique title: pages stay stable while notes are added or removed.
    const rows = (
      tag === undefined
        ? this.#sql(`SELECT n.title, n.updated_at, ${TAGS_COLUMN} FROM notes n
              WHERE n.title > ? ORDER BY n.title LIMIT ?`).all(after, limit + 1)
        : this.#sql(`SELECT n.title, n.updated_at, ${TAGS_COLUMN} FROM note_tags t JOIN notes n ON n.id = t.note_id
              WHERE t.tag = ? AND n.title > ? ORDER BY n.title LIMIT ?`).all(tag, after, limit + 1)
    ) as SummaryRow[];
    const page = rows.slice(0, limit).map(toSummary);
    const last = page.at(-1);
    const next_cursor =
      rows.length > limit && last !== undefined ? encodeCursor({ after: last.title, tag: tag ?? "" }) : null;
    return { notes: page, next_cursor };
  }

  async createNote(note: NewNote, options: { idempotencyKey?: string } = {}): Promise<Note> {
    const tags = normalizeTags(note.tags ?? []);
    const args = { title: note.title, body: note.body, tags };
    // Keys expire by the wall clock, not the store's clock (which tests pin).
    const request = { scope: IDEMPOTENCY_SCOPE, key: options.idempotencyKey, args, retentionMs: this.#retentionMs };
    return runIdempotent(this.#db, request, () => {
      if (this.#sql("SELECT 1 FROM notes WHERE title = ?").get(note.title)) {
        throw new ConflictError(`A note titled '${note.title}' already exists; use update_note to change it`);
      }
      const now = this.#now().toISOString();
      const { lastInsertRowid } = this.#sql(
        "INSERT INTO notes (title, body, version, created_at, updated_at) VALUES (?, ?, 1, ?, ?)",
      ).run(note.title, note.body, now, now);
      this.#insertTags(Number(lastInsertRowid), tags);
      return { title: note.title, body: note.body, tags, version: 1, created_at: now, updated_at: now };
    });
  }

  async updateNote(
    title: string,
    changes: NoteChanges,
    options: { expectedVersion?: number } = {},
  ): Promise<Note | undefined> {
    return this.#db
      .transaction(() => {
        const row = this.#sql("SELECT id, version FROM notes WHERE title = ?").get(title) as
          | { id: number; version: number }
          | undefined;
        if (!row) return undefined;
        const expected = options.expectedVersion;
        if (expected !== undefined && expected !== row.version) {
          throw new ConflictError(
            `Note '${title}' is at version ${row.version}, not ${expected}: it changed since you read it. ` +
              `Read it again with get_note, then retry with expected_version ${row.version}`,
          );
        }
        this.#sql("UPDATE notes SET body = coalesce(?, body), version = version + 1, updated_at = ? WHERE id = ?").run(
          changes.body ?? null,
          this.#now().toISOString(),
          row.id,
        );
        if (changes.tags !== undefined) {
          this.#sql("DELETE FROM note_tags WHERE note_id = ?").run(row.id);
          this.#insertTags(row.id, normalizeTags(changes.tags));
        }
        return this.#getNow(title);
      })
      .immediate();
  }

  async deleteNote(title: string): Promise<boolean> {
    return this.#db
      .transaction(() => this.#sql("DELETE FROM notes WHERE title = ?").run(title).changes > 0)
      .immediate();
  }

  async titlesWithPrefix(prefix: string, limit: number): Promise<string[]> {
    const rows = this.#sql("SELECT title FROM notes WHERE title LIKE ? ESCAPE '\\' ORDER BY title LIMIT ?").all(
      `${escapeLike(prefix)}%`,
      clampLimit(limit),
    ) as Array<{ title: string }>;
    return rows.map((r) => r.title);
  }

  async titlesNear(title: string, limit: number): Promise<string[]> {
    const each = Math.max(1, Math.ceil(clampLimit(limit) / 4));
    const column = (sql: string, ...params: unknown[]) =>
      (this.#sql(sql).all(...params) as Array<{ title: string }>).map((r) => r.title);
    // Neighbours in title order catch typos after the first letters; a shared start catches
    // case differences; title words catch a word of a longer title.
    const found = [
      ...column("SELECT title FROM notes WHERE title < ? ORDER BY title DESC LIMIT ?", title, each),
      ...column("SELECT title FROM notes WHERE title >= ? ORDER BY title LIMIT ?", title, each),
      ...column(
        "SELECT title FROM notes WHERE title LIKE ? ESCAPE '\\' ORDER BY title LIMIT ?",
        `${escapeLike(title.slice(0, 2))}%`,
        each,
      ),
    ];
    const words = titleWordsQuery(title);
    if (words !== undefined) {
      found.push(
        ...column(
          `SELECT n.title FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid
            WHERE notes_fts MATCH ? ORDER BY bm25(notes_fts, 10.0, 1.0), n.title LIMIT ?`,
          words,
          each,
        ),
      );
    }
    return [...new Set(found)].slice(0, clampLimit(limit));
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  /** Prepares each statement once per connection. */
  #sql(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = prepare(this.#db, sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Titles and snippets of one phase's page, in the order of `ids`. Rowids go in as BigInt: FTS5
   * seeks to an integer rowid, but reads every match (and compares wrongly) for a float, as JS
   * numbers bind. A newest-first page is a run of consecutive matches, so one range query reads
   * it and expands prefix terms once, not once per hit.
   */
  #hits(phase: FtsSearchPhase, ids: readonly number[]): NoteSearchHit[] {
    if (ids.length === 0) return [];
    const rows = phase.ranked
      ? ids.map((id) => this.#sql(HIT_SQL).get(phase.match, BigInt(id)) as NoteSearchHit & { id: number })
      : (this.#sql(HITS_BETWEEN_SQL).all(phase.match, BigInt(Math.min(...ids)), BigInt(Math.max(...ids))) as Array<
          NoteSearchHit & { id: number }
        >);
    const byId = new Map(rows.map(({ id, ...hit }) => [id, hit]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  #insertTags(noteId: number, tags: readonly string[]): void {
    const insert = this.#sql("INSERT INTO note_tags (note_id, tag) VALUES (?, ?)");
    for (const tag of tags) insert.run(noteId, tag);
  }
}
