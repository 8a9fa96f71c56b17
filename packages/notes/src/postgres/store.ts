import { ConflictError } from "@toolshed/errors";
import { checkIdempotencyRetention, escapeLike } from "@toolshed/storage";
import {
  openPostgresStore,
  type PgClient,
  PgCommonWords,
  type PgPool,
  type PostgresStoreConnection,
  type PostgresStoreOptions,
  pgSearchWords,
  runIdempotentPg,
  withPgTransaction,
} from "@toolshed/storage/postgres";
import { NOTES_MIGRATION_SCOPE } from "../sqlite/migrations.js";
import type { NewNote, Note, NoteChanges, NoteListPage, NoteSearchHit, NoteSummary, NotesStore } from "../store.js";
import { normalizeTags } from "../tags.js";
import { nextCursor, titleAfter } from "./list-cursor.js";
import { NOTES_PG_MIGRATIONS, NOTES_TS_CONFIG } from "./migrations.js";
import {
  NEWEST_SEARCH_SQL,
  RANK,
  RANKED_SEARCH_SQL,
  type SearchRow,
  shapeSnippet,
  titleWordsTsQuery,
} from "./search.js";

export interface PostgresNotesStoreOptions extends PostgresStoreOptions {
  /** Clock for created_at and updated_at; tests pass a fixed one. */
  now?: () => Date;
  /** How long an idempotency key is remembered (default 24 hours; Infinity keeps keys forever). */
  idempotencyRetentionMs?: number;
}

interface NoteRow {
  id: string;
  title: string;
  body: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  tags: string[];
}

interface SummaryRow {
  title: string;
  updated_at: Date;
  tags: string[];
}

// Tags of one note, sorted, as a text[] column so a page is one query.
const TAGS_COLUMN = "ARRAY(SELECT t.tag FROM note_tags t WHERE t.note_id = n.id ORDER BY t.tag) AS tags";
const NOTE_COLUMNS = `n.id, n.title, n.body, n.version, n.created_at, n.updated_at, ${TAGS_COLUMN}`;
const IDEMPOTENCY_SCOPE = "notes.create_note";
const MAX_PAGE = 100;

function toNote(row: NoteRow): Note {
  return {
    title: row.title,
    body: row.body,
    tags: row.tags,
    version: row.version,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function toSummary(row: SummaryRow): NoteSummary {
  return { title: row.title, tags: row.tags, updated_at: row.updated_at.toISOString() };
}

function clampLimit(limit: number): number {
  return Math.max(1, Math.min(MAX_PAGE, Math.floor(limit)));
}

/**
 * NotesStore on PostgreSQL (pg, pooled), for several server instances sharing one database:
 * tsvector search with a GIN index, every write in a transaction, title and idempotency-key
 * uniqueness held by the database. Driver errors (statement timeout, serialization failure,
 * deadlock, connection refused) propagate unchanged for classifyError to mark them retryable.
 */
function toHit(row: SearchRow): NoteSearchHit {
  return { title: row.title, snippet: shapeSnippet(row), updated_at: row.updated_at.toISOString() };
}

export class PostgresNotesStore implements NotesStore {
  readonly #pool: PgPool;
  readonly #release: () => Promise<void>;
  readonly #now: () => Date;
  readonly #retentionMs: number;
  readonly #commonWords = new PgCommonWords({
    table: "notes",
    column: "search",
    vector: `to_tsvector('${NOTES_TS_CONFIG}', w.word)`,
  });
  #closed = false;

  /** This store's tables, for checking a database's versions before any store opens it. */
  static readonly schema = { scope: NOTES_MIGRATION_SCOPE, migrations: NOTES_PG_MIGRATIONS };

  private constructor(connection: PostgresStoreConnection, now: () => Date, retentionMs: number) {
    this.#pool = connection.pool;
    this.#release = connection.release;
    this.#now = now;
    this.#retentionMs = retentionMs;
  }

  /**
   * Connects (a URL makes a pool that `close()` ends; a given pool stays the caller's) and brings
   * the tables to the latest version. Instances starting at once take turns on the migrations.
   */
  static async open(
    source: string | { pool: PgPool },
    options: PostgresNotesStoreOptions = {},
  ): Promise<PostgresNotesStore> {
    const retentionMs = checkIdempotencyRetention(options.idempotencyRetentionMs);
    const { now = () => new Date(), idempotencyRetentionMs: _retention, ...connect } = options;
    const connection = await openPostgresStore(source, { ...connect, ...PostgresNotesStore.schema });
    return new PostgresNotesStore(connection, now, retentionMs);
  }

  async getNote(title: string): Promise<Note | undefined> {
    return this.#get(this.#db(), title);
  }

  async searchNotes(query: string, options: { limit: number }): Promise<NoteSearchHit[]> {
    const words = pgSearchWords(query);
    if (words.length === 0) return [];
    const limit = clampLimit(options.limit);
    const db = this.#db();
    const starts = words.map((w) => `${w}:*`);
    const marks = starts.join(" | ");
    // A full page among the newest notes: the query is common, answered newest first.
    const newest = await db.query<SearchRow>(NEWEST_SEARCH_SQL, [starts.join(" & "), limit, marks]);
    if (newest.rows.length >= limit) return newest.rows.map(toHit);
    // Every word whole, ranked; then, to fill the page, word starts (common words kept whole).
    const whole = words.join(" & ");
    const { rows } = await db.query<SearchRow>(RANKED_SEARCH_SQL, [whole, limit, marks, null]);
    if (rows.length < limit) {
      const common = await this.#commonWords.among(db, words);
      const prefixes = words.map((w) => (common.has(w) ? w : `${w}:*`)).join(" & ");
      if (prefixes !== whole) {
        const more = await db.query<SearchRow>(RANKED_SEARCH_SQL, [prefixes, limit - rows.length, marks, whole]);
        rows.push(...more.rows);
      }
    }
    return rows.map(toHit);
  }

  async listNotes(options: { tag?: string; limit: number; cursor?: string }): Promise<NoteListPage> {
    const limit = clampLimit(options.limit);
    const tag = options.tag === undefined ? undefined : (normalizeTags([options.tag])[0] ?? "");
    const after = titleAfter(options.cursor, tag);
    // Keyset pagination on the unique title: pages stay stable while notes are added or removed.
    const { rows } =
      tag === undefined
        ? await this.#db().query<SummaryRow>(
            `SELECT n.title, n.updated_at, ${TAGS_COLUMN} FROM notes n
              WHERE n.title > $1 ORDER BY n.title LIMIT $2`,
            [after, limit + 1],
          )
        : await this.#db().query<SummaryRow>(
            `SELECT n.title, n.updated_at, ${TAGS_COLUMN} FROM note_tags nt JOIN notes n ON n.id = nt.note_id
              WHERE nt.tag = $1 AND n.title > $2 ORDER BY n.title LIMIT $3`,
            [tag, after, limit + 1],
          );
    const page = rows.slice(0, limit).map(toSummary);
    const last = page.at(-1);
    return { notes: page, next_cursor: rows.length > limit && last !== undefined ? nextCursor(last.title, tag) : null };
  }

  async createNote(note: NewNote, options: { idempotencyKey?: string } = {}): Promise<Note> {
    const tags = normalizeTags(note.tags ?? []);
    const args = { title: note.title, body: note.body, tags };
    const request = { scope: IDEMPOTENCY_SCOPE, key: options.idempotencyKey, args, retentionMs: this.#retentionMs };
    return withPgTransaction(this.#db(), (client) =>
      runIdempotentPg(client, request, async () => {
        const now = this.#now();
        // ON CONFLICT waits for a racing insert of the same title and then finds it taken.
        const inserted = await client.query<{ id: string }>(
          `INSERT INTO notes (title, body, version, created_at, updated_at) VALUES ($1, $2, 1, $3, $3)
            ON CONFLICT (title) DO NOTHING RETURNING id`,
          [note.title, note.body, now],
        );
        const id = inserted.rows[0]?.id;
        if (id === undefined) {
          throw new ConflictError(`A note titled '${note.title}' already exists; use update_note to change it`);
        }
        await insertTags(client, id, tags);
        const at = now.toISOString();
        return { title: note.title, body: note.body, tags, version: 1, created_at: at, updated_at: at };
      }),
    );
  }

  async updateNote(
    title: string,
    changes: NoteChanges,
    options: { expectedVersion?: number } = {},
  ): Promise<Note | undefined> {
    return withPgTransaction(this.#db(), async (client) => {
      // FOR UPDATE: a concurrent update waits, then sees the new version (no lost update).
      const row = (
        await client.query<{ id: string; version: number }>(
          "SELECT id, version FROM notes WHERE title = $1 FOR UPDATE",
          [title],
        )
      ).rows[0];
      if (!row) return undefined;
      const expected = options.expectedVersion;
      if (expected !== undefined && expected !== row.version) {
        throw new ConflictError(
          `Note '${title}' is at version ${row.version}, not ${expected}: it changed since you read it. ` +
            `Read it again with get_note, then retry with expected_version ${row.version}`,
        );
      }
      await client.query(
        "UPDATE notes SET body = coalesce($1, body), version = version + 1, updated_at = $2 WHERE id = $3",
        [changes.body ?? null, this.#now(), row.id],
      );
      if (changes.tags !== undefined) {
        await client.query("DELETE FROM note_tags WHERE note_id = $1", [row.id]);
        await insertTags(client, row.id, normalizeTags(changes.tags));
      }
      return this.#get(client, title);
    });
  }

  async deleteNote(title: string): Promise<boolean> {
    // One statement is its own transaction; tags go with the note (ON DELETE CASCADE).
    const { rowCount } = await this.#db().query("DELETE FROM notes WHERE title = $1", [title]);
    return (rowCount ?? 0) > 0;
  }

  async titlesWithPrefix(prefix: string, limit: number): Promise<string[]> {
    // lower() under the "C" collation folds ASCII only, as SQLite's LIKE does.
    const { rows } = await this.#db().query<{ title: string }>(
      "SELECT title FROM notes WHERE lower(title) LIKE lower($1) ESCAPE '\\' ORDER BY title LIMIT $2",
      [`${escapeLike(prefix)}%`, clampLimit(limit)],
    );
    return rows.map((r) => r.title);
  }

  async titlesNear(title: string, limit: number): Promise<string[]> {
    const each = Math.max(1, Math.ceil(clampLimit(limit) / 4));
    const db = this.#db();
    const column = async (sql: string, params: unknown[]) =>
      (await db.query<{ title: string }>(sql, params)).rows.map((r) => r.title);
    // Neighbours in title order catch typos after the first letters; a shared start catches
    // case differences; title words catch a word of a longer title.
    const found = [
      ...(await column("SELECT title FROM notes WHERE title < $1 ORDER BY title DESC LIMIT $2", [title, each])),
      ...(await column("SELECT title FROM notes WHERE title >= $1 ORDER BY title LIMIT $2", [title, each])),
      ...(await column(
        "SELECT title FROM notes WHERE lower(title) LIKE lower($1) ESCAPE '\\' ORDER BY title LIMIT $2",
        [`${escapeLike(title.slice(0, 2))}%`, each],
      )),
    ];
    const words = titleWordsTsQuery(title);
    if (words !== undefined) {
      found.push(
        ...(await column(
          `SELECT n.title FROM notes n, to_tsquery('${NOTES_TS_CONFIG}', $1) q
            WHERE n.search @@ q ORDER BY ${RANK} DESC, n.title LIMIT $2`,
          [words, each],
        )),
      );
    }
    return [...new Set(found)].slice(0, clampLimit(limit));
  }

  /** Ends the pool when the store made it from a URL; a pool passed in stays open for its owner. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#release();
  }

  #db(): PgPool {
    if (this.#closed) throw new Error("PostgresNotesStore is closed");
    return this.#pool;
  }

  async #get(db: PgPool | PgClient, title: string): Promise<Note | undefined> {
    const { rows } = await db.query<NoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes n WHERE n.title = $1`, [title]);
    return rows[0] && toNote(rows[0]);
  }
}

async function insertTags(client: PgClient, noteId: string, tags: readonly string[]): Promise<void> {
  if (tags.length === 0) return;
  await client.query("INSERT INTO note_tags (note_id, tag) SELECT $1, unnest($2::text[])", [noteId, tags]);
}
