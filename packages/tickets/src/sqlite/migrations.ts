import { IDEMPOTENCY_INDEX_SQL, IDEMPOTENCY_TABLE_SQL, type Migration } from "@toolshed/storage";

/** Scope of this pack's versions in toolshed_migrations, so packs can share one database. */
export const TICKETS_MIGRATION_SCOPE = "tickets";

/** Versions of the tickets tables; a file written by an older release is upgraded in place. */
export const TICKETS_SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "tickets and comments",
    up: `
      CREATE TABLE tickets (
        num INTEGER PRIMARY KEY AUTOINCREMENT,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        priority TEXT NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
        resolution TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      -- Ids start at T-1001 so they read as ticket numbers, not counters.
      INSERT INTO sqlite_sequence (name, seq) VALUES ('tickets', 1000);
      CREATE TABLE ticket_comments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ticket_num INTEGER NOT NULL REFERENCES tickets (num) ON DELETE CASCADE,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX ticket_comments_by_ticket ON ticket_comments (ticket_num, id);
      ${IDEMPOTENCY_TABLE_SQL};
    `,
  },
  {
    version: 2,
    name: "full-text index over title and body",
    up: `
      CREATE VIRTUAL TABLE tickets_fts USING fts5(
        title, body, content = 'tickets', content_rowid = 'num',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER tickets_fts_insert AFTER INSERT ON tickets BEGIN
        INSERT INTO tickets_fts (rowid, title, body) VALUES (new.num, new.title, new.body);
      END;
      CREATE TRIGGER tickets_fts_delete AFTER DELETE ON tickets BEGIN
        INSERT INTO tickets_fts (tickets_fts, rowid, title, body) VALUES ('delete', old.num, old.title, old.body);
      END;
      CREATE TRIGGER tickets_fts_update AFTER UPDATE OF title, body ON tickets BEGIN
        INSERT INTO tickets_fts (tickets_fts, rowid, title, body) VALUES ('delete', old.num, old.title, old.body);
        INSERT INTO tickets_fts (rowid, title, body) VALUES (new.num, new.title, new.body);
      END;
      -- Index the tickets an older file already has.
      INSERT INTO tickets_fts (tickets_fts) VALUES ('rebuild');
    `,
  },
  {
    version: 3,
    name: "indexes for recent-first listing",
    up: `
      CREATE INDEX tickets_by_updated ON tickets (updated_at DESC, num DESC);
      CREATE INDEX tickets_by_status_updated ON tickets (status, updated_at DESC, num DESC);
    `,
  },
  {
    version: 4,
    name: "expiry of idempotency keys",
    up: IDEMPOTENCY_INDEX_SQL,
  },
  {
    version: 5,
    name: "prefix indexes for word starts",
    // Word starts read one prefix posting list instead of merging every word that starts so;
    // FTS5 takes prefix= only when the table is made, so it is made again (the triggers stay).
    up: `
      DROP TABLE tickets_fts;
      CREATE VIRTUAL TABLE tickets_fts USING fts5(
        title, body, content = 'tickets', content_rowid = 'num',
        tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3 4'
      );
      INSERT INTO tickets_fts (tickets_fts) VALUES ('rebuild');
    `,
  },
];
