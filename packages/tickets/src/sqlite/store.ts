import { InvalidArgumentsError } from "@toolshed/errors";
import {
  checkIdempotencyRetention,
  decodeCursor,
  encodeCursor,
  type FtsSearchPhase,
  openSqliteStore,
  planFtsSearch,
  runIdempotent,
  type SqliteDatabase,
  type SqliteDriverChoice,
} from "@toolshed/storage";
import { commentsCursorPosition } from "../comments-cursor.js";
import { meaningfulWords, sharedWordsQuery } from "../fts-terms.js";
import {
  type AddedComment,
  type CreatedTicket,
  MAX_COMMENTS_PAGE,
  MAX_TICKETS_PAGE,
  type NewTicket,
  type SimilarTicket,
  type StatusChange,
  type Ticket,
  type TicketComment,
  type TicketPage,
  type TicketSearchHit,
  type TicketStatus,
  type TicketSummary,
  type TicketsStore,
  type TicketWithComments,
  type WriteOptions,
} from "../store.js";
import { formatTicketId, parseTicketId, ticketNotFoundError, ticketNumberTypos } from "../ticket-id.js";
import { TICKETS_MIGRATION_SCOPE, TICKETS_SQLITE_MIGRATIONS } from "./migrations.js";

export interface SqliteTicketsStoreOptions {
  /** Clock for created_at / updated_at (tests pin it). */
  now?: () => Date;
  /** How long a write waits for another connection's lock (default 5000 ms). */
  busyTimeoutMs?: number;
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

type TicketRow = Omit<Ticket, "id"> & { num: number };
// The part of a prepared statement this store uses.
type Statement = {
  run(...params: unknown[]): { lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
};
type SummaryRow = Omit<TicketSummary, "id"> & { num: number };

const SIMILAR_LIMIT = 5;
// Title words count four times as much as body words when ranking.
const BM25 = "bm25(tickets_fts, 4.0, 1.0)";

// A word in more tickets than this is common. bm25 reads the whole posting list of every term
// (it counts the rows each one is in), so a query with a common word is answered newest first
// instead, and a common word is not expanded to its longer forms: the work per query stays bounded.
const COMMON_ROWS = 2000;
const COMMON_PROBE_SQL = `SELECT 1 FROM tickets_fts WHERE tickets_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ${COMMON_ROWS}`;
const HIT_SELECT = `SELECT t.num, t.title, t.status, t.priority, t.updated_at,
    snippet(tickets_fts, 1, '**', '**', '…', 16) AS snippet
  FROM tickets_fts JOIN tickets AS t ON t.num = tickets_fts.rowid`;
const HIT_SQL = `${HIT_SELECT} WHERE tickets_fts MATCH ? AND tickets_fts.rowid = ?`;
const HITS_BETWEEN_SQL = `${HIT_SELECT} WHERE tickets_fts MATCH ? AND tickets_fts.rowid BETWEEN ? AND ?`;

function clamp(value: number, max: number): number {
  return Math.min(max, Math.max(1, Math.floor(Number.isFinite(value) ? value : max)));
}

function toTicket({ num, ...rest }: TicketRow): Ticket {
  return { id: formatTicketId(num), ...rest };
}

function toSummary({ num, ...rest }: SummaryRow): TicketSummary {
  return { id: formatTicketId(num), ...rest };
}

/** {@link TicketsStore} on SQLite (node:sqlite or better-sqlite3): FTS5 search, every write in one transaction. */
export class SqliteTicketsStore implements TicketsStore {
  readonly #db: SqliteDatabase;
  readonly #now: () => Date;
  readonly #retentionMs: number;
  // Prepared once per SQL text; the set of texts is fixed and small.
  readonly #statements = new Map<string, Statement>();

  /** This store's tables, for checking a database's versions before any store opens it. */
  static readonly schema = { scope: TICKETS_MIGRATION_SCOPE, migrations: TICKETS_SQLITE_MIGRATIONS };

  private constructor(db: SqliteDatabase, options: SqliteTicketsStoreOptions, retentionMs: number) {
    this.#db = db;
    this.#now = options.now ?? (() => new Date());
    this.#retentionMs = retentionMs;
  }

  /**
   * Opens (creating and upgrading as needed) a database file, or `:memory:`. A file from a newer
   * release is refused before anything is written to it.
   */
  static open(path: string, options: SqliteTicketsStoreOptions = {}): SqliteTicketsStore {
    const retentionMs = checkIdempotencyRetention(options.idempotencyRetentionMs);
    const db = openSqliteStore(path, {
      schema: SqliteTicketsStore.schema,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      readonly: options.readonly ?? false,
      ...(options.driver === undefined ? {} : { driver: options.driver }),
    });
    return new SqliteTicketsStore(db, options, retentionMs);
  }

  async searchTickets(query: {
    text: string;
    status: TicketStatus | "any";
    limit: number;
  }): Promise<TicketSearchHit[]> {
    const limit = clamp(query.limit, MAX_TICKETS_PAGE);
    const filtered = query.status !== "any";
    // One read transaction: the plan, the ranked ids and the page are one snapshot.
    return this.#db.transaction(() => {
      const phases = planFtsSearch(query.text, (term) => this.#isCommon(term));
      const hits: TicketSearchHit[] = [];
      for (const phase of phases) {
        if (hits.length >= limit) break;
        // Rank inside the index (joining tickets only to filter by status); snippets for the page only.
        const sql = `SELECT tickets_fts.rowid AS num FROM tickets_fts
          ${filtered ? "JOIN tickets AS t ON t.num = tickets_fts.rowid" : ""}
          WHERE tickets_fts MATCH ? ${filtered ? "AND t.status = ?" : ""}
          ORDER BY ${phase.ranked ? `${BM25}, tickets_fts.rowid` : "tickets_fts.rowid DESC"} LIMIT ?`;
        const params = filtered ? [phase.match, query.status, limit - hits.length] : [phase.match, limit - hits.length];
        const nums = (this.#sql(sql).all(...params) as Array<{ num: number }>).map((r) => r.num);
        hits.push(...this.#hits(phase, nums));
      }
      return hits;
    })();
  }

  async getTicket(
    id: string,
    options: { commentsLimit?: number; commentsCursor?: string } = {},
  ): Promise<TicketWithComments> {
    const limit = clamp(options.commentsLimit ?? 50, MAX_COMMENTS_PAGE);
    // One read transaction: the ticket, its count and its comments are one snapshot.
    return this.#db.transaction(() => {
      const row = this.#requireTicket(id);
      const before =
        options.commentsCursor === undefined ? undefined : commentsCursorPosition(options.commentsCursor, id, row.num);
      const count = (
        this.#sql("SELECT COUNT(*) AS n FROM ticket_comments WHERE ticket_num = ?").get(row.num) as { n: number }
      ).n;
      const rows = this.#sql(
        `SELECT id, body, created_at FROM ticket_comments
           WHERE ticket_num = ? AND id < ? ORDER BY id DESC LIMIT ?`,
      ).all(row.num, before ?? Number.MAX_SAFE_INTEGER, limit + 1) as TicketComment[];
      const page = rows.slice(0, limit).reverse();
      const oldest = page[0];
      const next = rows.length > limit && oldest ? encodeCursor({ t: row.num, c: oldest.id }) : null;
      return { ...toTicket(row), comment_count: count, comments: page, next_comments_cursor: next };
    })();
  }

  async createTicket(ticket: NewTicket, options: WriteOptions = {}): Promise<CreatedTicket> {
    const args = { title: ticket.title, body: ticket.body, priority: ticket.priority };
    // Only the insert holds the write lock; the similar-ticket search reads after the commit.
    // A result stored by an older release also has `similar`: it is recomputed like a new one.
    const { ticket: created } = runIdempotent(
      this.#db,
      { ...this.#keys("tickets.create_ticket", options), args },
      () => {
        const now = this.#timestamp();
        const { lastInsertRowid } = this.#sql(
          "INSERT INTO tickets (title, body, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
        ).run(args.title, args.body, args.priority, now, now);
        return { ticket: toTicket(this.#ticketRow(Number(lastInsertRowid)) as TicketRow) };
      },
    ) as { ticket: Ticket };
    return { ticket: created, similar: this.#similarOpen(parseTicketId(created.id) ?? 0, args) };
  }

  async updateTicketStatus(id: string, change: { status: TicketStatus; resolution?: string }): Promise<StatusChange> {
    if (change.status === "closed" && (change.resolution === undefined || change.resolution.trim() === "")) {
      throw new InvalidArgumentsError('resolution is required when status is "closed"', [
        { path: "resolution", message: 'is required when status is "closed"' },
      ]);
    }
    return this.#db
      .transaction((): StatusChange => {
        const row = this.#requireTicket(id);
        const resolution = change.status === "closed" ? (change.resolution ?? null) : null;
        const changed = row.status !== change.status || row.resolution !== resolution;
        if (changed) {
          this.#sql("UPDATE tickets SET status = ?, resolution = ?, updated_at = ? WHERE num = ?").run(
            change.status,
            resolution,
            this.#timestamp(),
            row.num,
          );
        }
        return { ticket: toTicket(this.#ticketRow(row.num) as TicketRow), previous_status: row.status, changed };
      })
      .immediate();
  }

  async addComment(id: string, body: string, options: WriteOptions = {}): Promise<AddedComment> {
    const args = { ticket_id: id, body };
    return runIdempotent(this.#db, { ...this.#keys("tickets.add_ticket_comment", options), args }, () => {
      const row = this.#requireTicket(id);
      const now = this.#timestamp();
      const { lastInsertRowid } = this.#sql(
        "INSERT INTO ticket_comments (ticket_num, body, created_at) VALUES (?, ?, ?)",
      ).run(row.num, body, now);
      this.#sql("UPDATE tickets SET updated_at = ? WHERE num = ?").run(now, row.num);
      const count = (
        this.#sql("SELECT COUNT(*) AS n FROM ticket_comments WHERE ticket_num = ?").get(row.num) as { n: number }
      ).n;
      return {
        ticket_id: formatTicketId(row.num),
        comment: { id: Number(lastInsertRowid), body, created_at: now },
        comment_count: count,
      };
    });
  }

  async listTickets(options: { status?: TicketStatus | "any"; limit: number; cursor?: string }): Promise<TicketPage> {
    const status = options.status ?? "any";
    const limit = clamp(options.limit, MAX_TICKETS_PAGE);
    let after: { u: string; n: number } | undefined;
    if (options.cursor !== undefined) {
      const position = decodeCursor(options.cursor, { u: "string", n: "number", s: "string" });
      if (position.s !== status) {
        throw new InvalidArgumentsError("cursor belongs to a listing with another status; omit it to start over", [
          { path: "cursor", message: "must be next_cursor from the previous page of this list" },
        ]);
      }
      after = { u: String(position.u), n: Number(position.n) };
    }
    // Filters are added only when used, so SQLite walks the (status,) updated_at, num index.
    const where: string[] = [];
    const params: unknown[] = [];
    if (status !== "any") {
      where.push("status = ?");
      params.push(status);
    }
    if (after) {
      where.push("(updated_at, num) < (?, ?)");
      params.push(after.u, after.n);
    }
    const rows = this.#sql(
      `SELECT num, title, status, priority, updated_at FROM tickets
       ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY updated_at DESC, num DESC LIMIT ?`,
    ).all(...params, limit + 1) as SummaryRow[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const next = rows.length > limit && last ? encodeCursor({ u: last.updated_at, n: last.num, s: status }) : null;
    return { tickets: page.map(toSummary), next_cursor: next };
  }

  async completeTicketIds(prefix: string, limit: number): Promise<string[]> {
    const bounded = clamp(limit, MAX_TICKETS_PAGE);
    const digits = prefix.trim().toUpperCase().replace(/^T-?/, "");
    if (digits === "") {
      const recent = this.#sql("SELECT num FROM tickets ORDER BY updated_at DESC, num DESC LIMIT ?").all(
        bounded,
      ) as Array<{ num: number }>;
      return recent.map((r) => formatTicketId(r.num));
    }
    if (!/^[1-9][0-9]{0,8}$/.test(digits)) return [];
    // Numbers whose decimal form starts with the digits: one index range per possible length.
    const ranges: Array<[number, number]> = [];
    const start = Number(digits);
    for (let extra = 0; digits.length + extra <= 9; extra++) {
      const scale = 10 ** extra;
      ranges.push([start * scale, (start + 1) * scale - 1]);
    }
    const where = ranges.map(() => "num BETWEEN ? AND ?").join(" OR ");
    const rows = this.#sql(`SELECT num FROM tickets WHERE ${where} ORDER BY num LIMIT ?`).all(
      ...ranges.flat(),
      bounded,
    ) as Array<{ num: number }>;
    return rows.map((r) => formatTicketId(r.num));
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  #sql(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }

  /** Where a write's idempotency key is kept, and how long (by the wall clock, not the store's). */
  #keys(scope: string, options: WriteOptions) {
    return { scope, key: options.idempotencyKey, retentionMs: this.#retentionMs };
  }

  #ticketRow(num: number): TicketRow | undefined {
    return this.#sql(
      "SELECT num, title, body, status, priority, resolution, created_at, updated_at FROM tickets WHERE num = ?",
    ).get(num) as TicketRow | undefined;
  }

  /** The ticket's row, or a NotFoundError naming the closest existing ids. */
  #requireTicket(id: string): TicketRow {
    const num = parseTicketId(id);
    const row = num === undefined ? undefined : this.#ticketRow(num);
    if (row) return row;
    throw ticketNotFoundError(id, this.#candidateIds(num));
  }

  /** A bounded set of existing ids near `num`: numeric neighbours and one-typo variants. */
  #candidateIds(num: number | undefined): string[] {
    const anchor = num ?? 0;
    const below = this.#sql("SELECT num FROM tickets WHERE num <= ? ORDER BY num DESC LIMIT 10").all(anchor);
    const above = this.#sql("SELECT num FROM tickets WHERE num > ? ORDER BY num LIMIT 10").all(anchor);
    const typos =
      num === undefined
        ? []
        : this.#sql("SELECT num FROM tickets WHERE num IN (SELECT value FROM json_each(?))").all(
            JSON.stringify(ticketNumberTypos(num)),
          );
    return [...below, ...above, ...typos].map((r) => formatTicketId((r as { num: number }).num));
  }

  #similarOpen(num: number, ticket: NewTicket): SimilarTicket[] {
    // Words in more than COMMON_ROWS tickets say little about likeness and would make bm25 read
    // their whole posting lists: they are left out, like stop words.
    const rare = (text: string) =>
      meaningfulWords(text, 8)
        .filter((w) => !this.#isCommon(`"${w}"`))
        .join(" ");
    const match = sharedWordsQuery(rare(ticket.title)) ?? sharedWordsQuery(rare(ticket.body));
    if (match === undefined) return [];
    const rows = this.#sql(
      `SELECT t.num, t.title
         FROM (SELECT rowid AS num, ${BM25} AS score FROM tickets_fts WHERE tickets_fts MATCH ?) AS m
         JOIN tickets AS t ON t.num = m.num
         WHERE t.status = 'open' AND t.num <> ?
         ORDER BY m.score, t.num
         LIMIT ?`,
    ).all(match, num, SIMILAR_LIMIT) as Array<{ num: number; title: string }>;
    return rows.map((r) => ({ id: formatTicketId(r.num), title: r.title }));
  }

  /**
   * Summaries and snippets of one phase's page, in the order of `nums`. Rowids go in as BigInt:
   * FTS5 seeks to an integer rowid, but reads every match (and compares wrongly) for a float, as
   * JS numbers bind. A newest-first page is a run of consecutive matches (of that status), so one
   * range query reads it and expands prefix terms once, not once per hit.
   */
  #hits(phase: FtsSearchPhase, nums: readonly number[]): TicketSearchHit[] {
    if (nums.length === 0) return [];
    type HitRow = SummaryRow & { snippet: string };
    const rows = phase.ranked
      ? nums.map((num) => this.#sql(HIT_SQL).get(phase.match, BigInt(num)) as HitRow)
      : (this.#sql(HITS_BETWEEN_SQL).all(
          phase.match,
          BigInt(Math.min(...nums)),
          BigInt(Math.max(...nums)),
        ) as HitRow[]);
    const byNum = new Map(rows.map(({ snippet, ...row }) => [row.num, { ...toSummary(row), snippet }]));
    return nums.flatMap((num) => byNum.get(num) ?? []);
  }

  #isCommon(term: string): boolean {
    return this.#sql(COMMON_PROBE_SQL).get(term) !== undefined;
  }
}
