// One adapter per pack: how to open its store, create a row through the public API, insert rows
// with the same SQL the store runs (for packs whose API is too slow to seed 100,000 rows), search
// through the store and the tool, and the naive LIKE query the FTS index replaces.
import { accountNameKey, crmPack, normalizeAccountName, SqliteCrmStore } from "@toolshed/crm";
import { PostgresCrmStore } from "@toolshed/crm/postgres";
import { notesPack, SqliteNotesStore } from "@toolshed/notes";
import { PostgresNotesStore } from "@toolshed/notes/postgres";
import { toFtsQuery } from "@toolshed/storage";
import { toPgTsQuery } from "@toolshed/storage/postgres";
import { parseTicketId, SqliteTicketsStore, ticketsPack } from "@toolshed/tickets";
import { PostgresTicketsStore } from "@toolshed/tickets/postgres";
import { accountRow, crmVocabulary, noteRow, notesVocabulary, ticketRow, ticketsVocabulary } from "./words.mjs";

/** Words of a text as the stores' unicode61 tokenizer sees ASCII text: runs of letters and digits. */
export function tokens(text) {
  return (
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** A clock the seeding loop sets to each row's own time, so created_at spreads over two years. */
function seedClock() {
  let at;
  return {
    set: (date) => {
      at = date;
    },
    release: () => {
      at = undefined;
    },
    now: () => at ?? new Date(),
  };
}

function likeSql({ table, columns, identity }, words, ranked) {
  const one = `(${columns.map((c) => `${c} LIKE ?`).join(" OR ")})`;
  const where = Array.from({ length: words }, () => one).join(" AND ");
  const rank = Array.from({ length: words }, () => `(${columns[0]} LIKE ?)`).join(" + ");
  return `SELECT ${identity} AS id FROM ${table} WHERE ${where}${ranked ? ` ORDER BY ${rank} DESC` : ""} LIMIT ?`;
}

const notes = {
  name: "notes",
  tool: "search_notes",
  vocabulary: notesVocabulary,
  row: noteRow,
  // Titles are unique; a repeated one gets the row number, as a person would add a date.
  uniqueKey: (row) => row.title,
  makeUnique: (row, index) => ({ ...row, title: `${row.title} ${index}` }),
  searchableText: (row) => `${row.title} ${row.body}`,
  open(file) {
    const clock = seedClock();
    const store = SqliteNotesStore.open(file, { now: clock.now });
    return { store, clock, pack: notesPack({ store }) };
  },
  async createApi({ store, clock }, row) {
    clock.set(row.at);
    await store.createNote({ title: row.title, body: row.body, tags: row.tags });
  },
  // The statements of SqliteNotesStore.createNote, without its per-row transaction.
  bulkInserter(db) {
    const note = db.prepare("INSERT INTO notes (title, body, version, created_at, updated_at) VALUES (?, ?, 1, ?, ?)");
    const tag = db.prepare("INSERT INTO note_tags (note_id, tag) VALUES (?, ?)");
    return (row) => {
      const at = row.at.toISOString();
      const { lastInsertRowid } = note.run(row.title, row.body, at, at);
      for (const t of row.tags) tag.run(lastInsertRowid, t);
    };
  },
  async searchStore({ store }, text, limit) {
    return (await store.searchNotes(text, { limit })).map((h) => h.title);
  },
  toolArguments: (text, limit) => ({ query: text, limit }),
  toolHits: (result) => result.structuredContent?.result?.map((h) => h.title),
  ftsTable: "notes_fts",
  like: { table: "notes", columns: ["title", "body"], identity: "title" },
  textOf: (db) => {
    const get = db.prepare("SELECT title || ' ' || body AS text FROM notes WHERE title = ?");
    return (id) => get.get(id)?.text;
  },
  // unicode61 without stemming: every query word starts some word of every hit.
  wordCheck: (word) => word,
  pg: {
    async open(url, schema) {
      const clock = seedClock();
      const store = await PostgresNotesStore.open(url, { schema, now: clock.now });
      return { store, clock, pack: notesPack({ store }) };
    },
    searchIndex: "notes_search_gin",
    // createNote's INSERTs for a batch of rows: the notes, then their tags found by the unique title.
    async bulkInsert(client, rows) {
      const at = rows.map((r) => r.at.toISOString());
      await client.query(
        `INSERT INTO notes (title, body, version, created_at, updated_at)
         SELECT t, b, 1, a, a FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS r(t, b, a)`,
        [rows.map((r) => r.title), rows.map((r) => r.body), at],
      );
      const tagged = rows.flatMap((r) => r.tags.map((tag) => [r.title, tag]));
      await client.query(
        `INSERT INTO note_tags (note_id, tag)
         SELECT n.id, r.tag FROM unnest($1::text[], $2::text[]) AS r(title, tag) JOIN notes n ON n.title = r.title`,
        [tagged.map((t) => t[0]), tagged.map((t) => t[1])],
      );
    },
    textOf: (pool) => async (id) =>
      (await pool.query("SELECT title || ' ' || body AS text FROM notes WHERE title = $1", [id])).rows[0]?.text,
    matchSql: "SELECT count(*)::int AS n FROM notes WHERE search @@ to_tsquery('notes_search', $1)",
  },
};

const tickets = {
  name: "tickets",
  tool: "search_tickets",
  vocabulary: ticketsVocabulary,
  row: ticketRow,
  searchableText: (row) => `${row.title} ${row.body}`,
  open(file) {
    const clock = seedClock();
    const store = SqliteTicketsStore.open(file, { now: clock.now });
    return { store, clock, pack: ticketsPack({ store }) };
  },
  async createApi({ store, clock }, row) {
    clock.set(row.at);
    const { ticket } = await store.createTicket({ title: row.title, body: row.body, priority: row.priority });
    if (row.status === "closed") {
      await store.updateTicketStatus(ticket.id, { status: "closed", resolution: row.resolution });
    }
  },
  // SqliteTicketsStore.createTicket's INSERT, with the status and resolution that a later
  // update_ticket_status would set written at once.
  bulkInserter(db) {
    const insert = db.prepare(
      "INSERT INTO tickets (title, body, status, priority, resolution, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    return (row) => {
      const at = row.at.toISOString();
      insert.run(row.title, row.body, row.status, row.priority, row.resolution, at, at);
    };
  },
  async searchStore({ store }, text, limit) {
    return (await store.searchTickets({ text, status: "any", limit })).map((h) => h.id);
  },
  toolArguments: (text, limit) => ({ query: text, status: "any", limit }),
  toolHits: (result) => result.structuredContent?.result?.map((h) => h.id),
  ftsTable: "tickets_fts",
  like: { table: "tickets", columns: ["title", "body"], identity: "'T-' || num" },
  textOf: (db) => {
    const get = db.prepare("SELECT title || ' ' || body AS text FROM tickets WHERE num = ?");
    return (id) => get.get(parseTicketId(id))?.text;
  },
  // The porter stemmer shortens words before matching ("connection" finds "connecting"), so only
  // the first three letters are certain to start a word of the hit.
  wordCheck: (word) => word.slice(0, 3),
  pg: {
    async open(url, schema) {
      const clock = seedClock();
      const store = await PostgresTicketsStore.open(url, { schema, now: clock.now });
      return { store, clock, pack: ticketsPack({ store }) };
    },
    searchIndex: "tickets_search",
    async bulkInsert(client, rows) {
      const at = rows.map((r) => r.at.toISOString());
      await client.query(
        `INSERT INTO tickets (title, body, status, priority, resolution, created_at, updated_at)
         SELECT t, b, s, p, r, a, a
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS x(t, b, s, p, r, a)`,
        [
          rows.map((r) => r.title),
          rows.map((r) => r.body),
          rows.map((r) => r.status),
          rows.map((r) => r.priority),
          rows.map((r) => r.resolution ?? null),
          at,
        ],
      );
    },
    textOf: (pool) => async (id) =>
      (await pool.query("SELECT title || ' ' || body AS text FROM tickets WHERE num = $1", [parseTicketId(id)])).rows[0]
        ?.text,
    matchSql:
      "SELECT count(*)::int AS n FROM tickets WHERE search @@ to_tsquery('toolshed_tickets_search', toolshed_tickets_fold($1))",
  },
};

const crm = {
  name: "crm",
  tool: "crm_search_accounts",
  vocabulary: crmVocabulary,
  row: accountRow,
  // Names are unique ignoring case; a repeated one gets the row number.
  uniqueKey: (row) => accountNameKey(row.name),
  makeUnique: (row, index) => ({ ...row, name: `${row.name} ${index}` }),
  searchableText: (row) => `${row.name} ${row.domain ?? ""} ${row.notes ?? ""}`,
  open(file) {
    const store = SqliteCrmStore.open(file);
    return { store, clock: seedClock(), pack: crmPack({ store }) };
  },
  async createApi({ store }, row) {
    await store.createAccount(row);
  },
  // SqliteCrmStore's INSERT with the same name normalisation, without its per-row transaction.
  bulkInserter(db) {
    const insert = db.prepare(
      `INSERT INTO crm_accounts (id, name, name_key, tier, arr, domain, notes, archived, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
    );
    const now = new Date().toISOString();
    return (row) => {
      const name = normalizeAccountName(row.name);
      insert.run(row.id, name, accountNameKey(name), row.tier, row.arr, row.domain, row.notes, now, now);
    };
  },
  async searchStore({ store }, text, limit) {
    return (await store.searchAccounts({ text, minArr: 0, limit })).hits.map((h) => h.account.id);
  },
  toolArguments: (text, limit) => ({ query: text, limit }),
  toolHits: (result) => result.structuredContent?.accounts?.map((a) => a.id),
  ftsTable: "crm_accounts_fts",
  like: { table: "crm_accounts", columns: ["name", "domain", "notes"], identity: "id" },
  textOf: (db) => {
    const get = db.prepare(
      "SELECT name || ' ' || coalesce(domain, '') || ' ' || coalesce(notes, '') AS text FROM crm_accounts WHERE id = ?",
    );
    return (id) => get.get(id)?.text;
  },
  wordCheck: (word) => word,
  pg: {
    async open(url, schema) {
      const store = await PostgresCrmStore.open(url, { schema });
      return { store, clock: seedClock(), pack: crmPack({ store }) };
    },
    searchIndex: "crm_accounts_search",
    async bulkInsert(client, rows) {
      const names = rows.map((r) => normalizeAccountName(r.name));
      await client.query(
        `INSERT INTO crm_accounts (id, name, name_key, tier, arr, domain, notes)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::text[], $7::text[])`,
        [
          rows.map((r) => r.id),
          names,
          names.map(accountNameKey),
          rows.map((r) => r.tier),
          rows.map((r) => r.arr),
          rows.map((r) => r.domain ?? null),
          rows.map((r) => r.notes ?? null),
        ],
      );
    },
    textOf: (pool) => async (id) =>
      (
        await pool.query(
          "SELECT name || ' ' || coalesce(domain, '') || ' ' || coalesce(notes, '') AS text FROM crm_accounts WHERE id = $1",
          [id],
        )
      ).rows[0]?.text,
    matchSql: "SELECT count(*)::int AS n FROM crm_accounts WHERE search @@ to_tsquery('simple', crm_unaccent($1))",
  },
};

export const PACKS = { notes, tickets, crm };

/** How many rows the store's FTS query for `text` matches before ranking keeps the best few. */
export function matchCounter(pack, db) {
  const statement = db.prepare(`SELECT count(*) AS n FROM ${pack.ftsTable} WHERE ${pack.ftsTable} MATCH ?`);
  return (text) => {
    const match = toFtsQuery(text);
    return match === undefined ? 0 : statement.get(match).n;
  };
}

/** The same count on a pack's PostgreSQL tables, with the stores' own tsquery. */
export function pgMatchCounter(pack, pool) {
  return async (text) => {
    const match = toPgTsQuery(text);
    return match === undefined ? 0 : (await pool.query(pack.pg.matchSql, [match])).rows[0].n;
  };
}

/**
 * `SELECT … WHERE (col LIKE '%w%' OR …) AND … LIMIT n` over every word: what a store without FTS
 * would run. `ranked` puts rows whose first column (title, name) has the words first, the crudest
 * ranking there is; it makes every query read every row.
 */
export function likeSearcher(pack, db, { ranked = false } = {}) {
  const statements = new Map();
  return (text, limit) => {
    const words = tokens(text);
    if (words.length === 0) return [];
    let statement = statements.get(words.length);
    if (statement === undefined) {
      statement = db.prepare(likeSql(pack.like, words.length, ranked));
      statements.set(words.length, statement);
    }
    const params = words.flatMap((w) => pack.like.columns.map(() => `%${w}%`));
    if (ranked) params.push(...words.map((w) => `%${w}%`));
    return statement.all(...params, limit).map((r) => r.id);
  };
}
