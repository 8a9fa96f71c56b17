import { InvalidArgumentsError } from "@toolshed/errors";
import { checkIdempotencyRetention, encodeCursor } from "@toolshed/storage";
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
import { commentsCursorPosition } from "../comments-cursor.js";
import { TICKETS_MIGRATION_SCOPE } from "../sqlite/migrations.js";
import {
  type AddedComment,
  type CreatedTicket,
  MAX_COMMENTS_PAGE,
  MAX_TICKETS_PAGE,
  type NewTicket,
  type SimilarTicket,
  type StatusChange,
  type TicketPage,
  type TicketSearchHit,
  type TicketStatus,
  type TicketsStore,
  type TicketWithComments,
  type WriteOptions,
} from "../store.js";
import { formatTicketId, parseTicketId, ticketNotFoundError, ticketNumberTypos } from "../ticket-id.js";
import { TICKETS_FOLD_FUNCTION, TICKETS_PG_MIGRATIONS, TICKETS_TS_CONFIG } from "./migrations.js";
import {
  type CommentRow,
  canonicalAdded,
  canonicalCreated,
  listCursorPosition,
  SUMMARY_COLUMNS,
  type SummaryRow,
  TICKET_COLUMNS,
  type TicketRow,
  toComment,
  toSummary,
  toTicket,
} from "./rows.js";
import { sharedWordsTsQuery, withEllipses } from "./search-terms.js";

export interface PostgresTicketsStoreOptions extends PostgresStoreOptions {
  /** Clock for created_at / updated_at (tests pin it). */
  now?: () => Date;
  /** How long an idempotency key is remembered (default 24 hours; Infinity keeps keys forever). */
  idempotencyRetentionMs?: number;
}

/** Anything that can run a query: the pool, or a client inside a transaction. */
type Queryable = Pick<PgClient, "query">;

const SIMILAR_LIMIT = 5;
// The tsquery of user text, folded like the documents (lower case, no diacritics).
const TS_QUERY = `to_tsquery('${TICKETS_TS_CONFIG}', ${TICKETS_FOLD_FUNCTION}($1))`;
// About as long as SQLite's snippet(..., 16): up to 16 words around the best match.
const HEADLINE_OPTIONS = "StartSel=**, StopSel=**, MaxWords=16, MinWords=8, ShortWord=2";

// Ranking reads every match (its tsvector and its row): a word in 400,000 tickets took about a
// second. So, as the SQLite store does for common words, a query that finds a full page among
// the newest tickets is answered newest first from them, and a ranked query ranks at most
// RANKED_CAP matches: first tickets with every word whole, then (to fill the page) tickets with
// them as word starts, common words kept whole (see PgCommonWords). A table no bigger than the
// window is always ranked.
const NEWEST_WINDOW = 4000;
const RANKED_CAP = 1000;
const STATUS_FILTER = "($2 = 'any' OR t.status = $2)";

const NEWEST_HITS = `
  SELECT t.num, t.title, t.status, t.priority, t.updated_at, t.body, 0::real AS rank
    FROM (SELECT * FROM tickets ORDER BY num DESC LIMIT ${NEWEST_WINDOW}) AS t, q
    WHERE t.search @@ q.q AND ${STATUS_FILTER}
      AND EXISTS (SELECT 1 FROM tickets ORDER BY num DESC OFFSET ${NEWEST_WINDOW} LIMIT 1)
    ORDER BY t.num DESC
    LIMIT $3`;

const RANKED_HITS = `
  SELECT m.num, m.title, m.status, m.priority, m.updated_at, m.body, ts_rank_cd(m.search, m.q) AS rank
    FROM (
      SELECT t.*, q.q FROM tickets AS t, q
        WHERE t.search @@ q.q AND ${STATUS_FILTER}
          AND ($5::text IS NULL OR NOT t.search @@ to_tsquery('${TICKETS_TS_CONFIG}', ${TICKETS_FOLD_FUNCTION}($5)))
        LIMIT ${RANKED_CAP}) AS m
    ORDER BY rank DESC, m.num
    LIMIT $3`;

/**
 * One page of search hits; ts_headline parses the body, so only the returned rows pay for it.
 * $1 is the query, $2 the status, $3 the limit; a ranked page marks the words of $4 (every word
 * as a prefix) and leaves out tickets matching $5 (the whole words, when filling after them), or none.
 */
function searchSql(hits: string, order: string, marks: string): string {
  return `WITH q AS (SELECT ${TS_QUERY} AS q), hits AS (${hits})
    SELECT hits.num, hits.title, hits.status, hits.priority, hits.updated_at, hits.body,
           ts_headline('${TICKETS_TS_CONFIG}', hits.body, ${marks}, '${HEADLINE_OPTIONS}') AS snippet
      FROM hits, q
      ORDER BY ${order}`;
}

const NEWEST_SEARCH_SQL = searchSql(NEWEST_HITS, "hits.num DESC", "q.q");
const RANKED_SEARCH_SQL = searchSql(
  RANKED_HITS,
  "hits.rank DESC, hits.num",
  `to_tsquery('${TICKETS_TS_CONFIG}', ${TICKETS_FOLD_FUNCTION}($4))`,
);

function clamp(value: number, max: number): number {
  return Math.min(max, Math.max(1, Math.floor(Number.isFinite(value) ? value : max)));
}

/**
 * {@link TicketsStore} on PostgreSQL (pg, pooled): tsvector search with a GIN index, every write
 * in one transaction, idempotency keys that hold across server instances sharing the database.
 * Driver errors (statement timeout, serialization failure, deadlock, refused connection) are
 * left as they are, for classifyError to report as retryable.
 */
export class PostgresTicketsStore implements TicketsStore {
  readonly #pool: PgPool;
  readonly #release: () => Promise<void>;
  readonly #now: () => Date;
  readonly #retentionMs: number;
  readonly #commonWords = new PgCommonWords({
    table: "tickets",
    column: "search",
    vector: `to_tsvector('${TICKETS_TS_CONFIG}', ${TICKETS_FOLD_FUNCTION}(w.word))`,
  });

  /** This store's tables, for checking a database's versions before any store opens it. */
  static readonly schema = { scope: TICKETS_MIGRATION_SCOPE, migrations: TICKETS_PG_MIGRATIONS };

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
    options: PostgresTicketsStoreOptions = {},
  ): Promise<PostgresTicketsStore> {
    const retentionMs = checkIdempotencyRetention(options.idempotencyRetentionMs);
    const { now = () => new Date(), idempotencyRetentionMs: _retention, ...connect } = options;
    const connection = await openPostgresStore(source, { ...connect, ...PostgresTicketsStore.schema });
    return new PostgresTicketsStore(connection, now, retentionMs);
  }

  async searchTickets(query: {
    text: string;
    status: TicketStatus | "any";
    limit: number;
  }): Promise<TicketSearchHit[]> {
    const words = pgSearchWords(query.text);
    if (words.length === 0) return [];
    const limit = clamp(query.limit, MAX_TICKETS_PAGE);
    const everyStart = words.map((w) => `${w}:*`).join(" & ");
    type HitRow = SummaryRow & { body: string; snippet: string };
    const toHit = (row: HitRow) => ({ ...toSummary(row), snippet: withEllipses(row.snippet, row.body) });
    // A full page among the newest tickets: the query is common, answered newest first.
    const newest = await this.#pool.query<HitRow>(NEWEST_SEARCH_SQL, [everyStart, query.status, limit]);
    if (newest.rows.length >= limit) return newest.rows.map(toHit);
    // Every word whole, ranked; then, to fill the page, word starts (common words kept whole).
    const whole = words.join(" & ");
    const { rows } = await this.#pool.query<HitRow>(RANKED_SEARCH_SQL, [whole, query.status, limit, everyStart, null]);
    if (rows.length < limit) {
      const common = await this.#commonWords.among(this.#pool, words);
      const starts = words.map((w) => (common.has(w) ? w : `${w}:*`)).join(" & ");
      if (starts !== whole) {
        const more = await this.#pool.query<HitRow>(RANKED_SEARCH_SQL, [
          starts,
          query.status,
          limit - rows.length,
          everyStart,
          whole,
        ]);
        rows.push(...more.rows);
      }
    }
    return rows.map(toHit);
  }

  async getTicket(
    id: string,
    options: { commentsLimit?: number; commentsCursor?: string } = {},
  ): Promise<TicketWithComments> {
    const limit = clamp(options.commentsLimit ?? 50, MAX_COMMENTS_PAGE);
    // One snapshot: the ticket, its count and its comments agree with each other.
    return withPgTransaction(
      this.#pool,
      async (client) => {
        const row = await this.#requireTicket(client, id);
        const before =
          options.commentsCursor === undefined
            ? undefined
            : commentsCursorPosition(options.commentsCursor, id, row.num);
        const count = await this.#commentCount(client, row.num);
        const { rows } = await client.query<CommentRow>(
          `SELECT id, body, created_at FROM ticket_comments
             WHERE ticket_num = $1 AND ($2::int IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
          [row.num, before ?? null, limit + 1],
        );
        const page = rows.slice(0, limit).reverse().map(toComment);
        const oldest = page[0];
        const next = rows.length > limit && oldest ? encodeCursor({ t: row.num, c: oldest.id }) : null;
        return { ...toTicket(row), comment_count: count, comments: page, next_comments_cursor: next };
      },
      { isolation: "repeatable read" },
    );
  }

  async createTicket(ticket: NewTicket, options: WriteOptions = {}): Promise<CreatedTicket> {
    const args = { title: ticket.title, body: ticket.body, priority: ticket.priority };
    const result = await withPgTransaction(this.#pool, (client) =>
      runIdempotentPg(client, { ...this.#keys("tickets.create_ticket", options), args }, async () => {
        const { rows } = await client.query<TicketRow>(
          `INSERT INTO tickets (title, body, priority, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
             RETURNING ${TICKET_COLUMNS}`,
          [args.title, args.body, args.priority, this.#timestamp()],
        );
        const row = rows[0] as TicketRow;
        return { ticket: toTicket(row), similar: await this.#similarOpen(client, row.num, args) };
      }),
    );
    return canonicalCreated(result);
  }

  async updateTicketStatus(id: string, change: { status: TicketStatus; resolution?: string }): Promise<StatusChange> {
    if (change.status === "closed" && (change.resolution === undefined || change.resolution.trim() === "")) {
      throw new InvalidArgumentsError('resolution is required when status is "closed"', [
        { path: "resolution", message: 'is required when status is "closed"' },
      ]);
    }
    return withPgTransaction(this.#pool, async (client) => {
      const row = await this.#requireTicket(client, id, { lock: true });
      const resolution = change.status === "closed" ? (change.resolution ?? null) : null;
      const changed = row.status !== change.status || row.resolution !== resolution;
      let current = row;
      if (changed) {
        const { rows } = await client.query<TicketRow>(
          `UPDATE tickets SET status = $1, resolution = $2, updated_at = $3 WHERE num = $4 RETURNING ${TICKET_COLUMNS}`,
          [change.status, resolution, this.#timestamp(), row.num],
        );
        current = rows[0] as TicketRow;
      }
      return { ticket: toTicket(current), previous_status: row.status, changed };
    });
  }

  async addComment(id: string, body: string, options: WriteOptions = {}): Promise<AddedComment> {
    const args = { ticket_id: id, body };
    const result = await withPgTransaction(this.#pool, (client) =>
      runIdempotentPg(client, { ...this.#keys("tickets.add_ticket_comment", options), args }, async () => {
        // The row lock keeps comment counts and updated_at in step when comments race.
        const row = await this.#requireTicket(client, id, { lock: true });
        const now = this.#timestamp();
        const { rows } = await client.query<CommentRow>(
          "INSERT INTO ticket_comments (ticket_num, body, created_at) VALUES ($1, $2, $3) RETURNING id, body, created_at",
          [row.num, body, now],
        );
        await client.query("UPDATE tickets SET updated_at = $1 WHERE num = $2", [now, row.num]);
        return {
          ticket_id: formatTicketId(row.num),
          comment: toComment(rows[0] as CommentRow),
          comment_count: await this.#commentCount(client, row.num),
        };
      }),
    );
    return canonicalAdded(result);
  }

  async listTickets(options: { status?: TicketStatus | "any"; limit: number; cursor?: string }): Promise<TicketPage> {
    const status = options.status ?? "any";
    const limit = clamp(options.limit, MAX_TICKETS_PAGE);
    const after = options.cursor === undefined ? undefined : listCursorPosition(options.cursor, status);
    // Filters are added only when used, so the planner walks the (status,) updated_at, num index.
    const where: string[] = [];
    const params: unknown[] = [];
    if (status !== "any") {
      params.push(status);
      where.push(`status = $${params.length}`);
    }
    if (after) {
      params.push(after.u, after.n);
      where.push(`(updated_at, num) < ($${params.length - 1}::timestamptz, $${params.length}::int)`);
    }
    params.push(limit + 1);
    const { rows } = await this.#pool.query<SummaryRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM tickets
       ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY updated_at DESC, num DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const next =
      rows.length > limit && last ? encodeCursor({ u: last.updated_at.toISOString(), n: last.num, s: status }) : null;
    return { tickets: page.map(toSummary), next_cursor: next };
  }

  async completeTicketIds(prefix: string, limit: number): Promise<string[]> {
    const bounded = clamp(limit, MAX_TICKETS_PAGE);
    const digits = prefix.trim().toUpperCase().replace(/^T-?/, "");
    if (digits === "") {
      const { rows } = await this.#pool.query<{ num: number }>(
        "SELECT num FROM tickets ORDER BY updated_at DESC, num DESC LIMIT $1",
        [bounded],
      );
      return rows.map((r) => formatTicketId(r.num));
    }
    if (!/^[1-9][0-9]{0,8}$/.test(digits)) return [];
    // Numbers whose decimal form starts with the digits: one index range per possible length.
    const params: number[] = [];
    const ranges: string[] = [];
    const start = Number(digits);
    for (let extra = 0; digits.length + extra <= 9; extra++) {
      const scale = 10 ** extra;
      params.push(start * scale, (start + 1) * scale - 1);
      ranges.push(`num BETWEEN $${params.length - 1} AND $${params.length}`);
    }
    params.push(bounded);
    const { rows } = await this.#pool.query<{ num: number }>(
      `SELECT num FROM tickets WHERE ${ranges.join(" OR ")} ORDER BY num LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => formatTicketId(r.num));
  }

  /** Ends the pool when the store made it from a URL; a pool passed in stays open for its owner. */
  async close(): Promise<void> {
    await this.#release();
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }

  /** Where a write's idempotency key is kept, and how long (the database's clock decides expiry). */
  #keys(scope: string, options: WriteOptions) {
    return { scope, key: options.idempotencyKey, retentionMs: this.#retentionMs };
  }

  async #commentCount(db: Queryable, num: number): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      "SELECT COUNT(*)::int AS n FROM ticket_comments WHERE ticket_num = $1",
      [num],
    );
    return rows[0]?.n ?? 0;
  }

  /** The ticket's row (locked for the transaction when asked), or a NotFoundError naming the closest ids. */
  async #requireTicket(db: Queryable, id: string, options: { lock?: boolean } = {}): Promise<TicketRow> {
    const num = parseTicketId(id);
    if (num !== undefined) {
      const { rows } = await db.query<TicketRow>(
        `SELECT ${TICKET_COLUMNS} FROM tickets WHERE num = $1${options.lock ? " FOR UPDATE" : ""}`,
        [num],
      );
      if (rows[0]) return rows[0];
    }
    throw ticketNotFoundError(id, await this.#candidateIds(db, num));
  }

  /** A bounded set of existing ids near `num`: numeric neighbours and one-typo variants. */
  async #candidateIds(db: Queryable, num: number | undefined): Promise<string[]> {
    const anchor = num ?? 0;
    const below = await db.query<{ num: number }>(
      "SELECT num FROM tickets WHERE num <= $1 ORDER BY num DESC LIMIT 10",
      [anchor],
    );
    const above = await db.query<{ num: number }>("SELECT num FROM tickets WHERE num > $1 ORDER BY num LIMIT 10", [
      anchor,
    ]);
    const typos =
      num === undefined
        ? []
        : (
            await db.query<{ num: number }>("SELECT num FROM tickets WHERE num = ANY($1::int[])", [
              ticketNumberTypos(num),
            ])
          ).rows;
    return [...below.rows, ...above.rows, ...typos].map((r) => formatTicketId(r.num));
  }

  // ts_rank, not ts_rank_cd: for duplicates the shared words count, not how close together they
  // sit (cover density ranks "Reset link button" above "Password reset email" for "Password
  // reset link expired"); equal ranks go to the older ticket, the likely original.
  async #similarOpen(db: Queryable, num: number, ticket: NewTicket): Promise<SimilarTicket[]> {
    const tsquery = sharedWordsTsQuery(ticket.title) ?? sharedWordsTsQuery(ticket.body);
    if (tsquery === undefined) return [];
    const { rows } = await db.query<{ num: number; title: string }>(
      `WITH q AS (SELECT ${TS_QUERY} AS q)
       SELECT t.num, t.title FROM tickets AS t, q
         WHERE t.search @@ q.q AND t.status = 'open' AND t.num <> $2
         ORDER BY ts_rank(t.search, q.q) DESC, t.num
         LIMIT $3`,
      [tsquery, num, SIMILAR_LIMIT],
    );
    return rows.map((r) => ({ id: formatTicketId(r.num), title: r.title }));
  }
}
