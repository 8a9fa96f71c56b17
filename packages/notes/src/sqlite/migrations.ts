import { IDEMPOTENCY_INDEX_SQL, IDEMPOTENCY_TABLE_SQL, type Migration } from "@toolshed/storage";

/** Scope of this pack's versions in toolshed_migrations, so packs can share one file. */
export const NOTES_MIGRATION_SCOPE = "notes";

/** Append only: a released migration never changes, so older files upgrade in place. */
export const NOTES_SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "notes and tags",
    up: `
      CREATE TABLE notes (
        id INTEGER PRIMARY KEY,
        title TEXT NOT NULL UNIQUE,
        body TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE note_tags (
        note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        PRIMARY KEY (note_id, tag)
      ) WITHOUT ROWID;
      CREATE INDEX note_tags_by_tag ON note_tags(tag, note_id);
    `,
  },
  {
    version: 2,
    name: "full-text index",
    // External-content FTS5 table kept in step by triggers; 'rebuild' indexes notes that exist.
    up: `
      CREATE VIRTUAL TABLE notes_fts USING fts5(
        title, body, content='notes', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
        INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
      END;
      CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
        INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
      END;
      CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, body ON notes BEGIN
        INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
        INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
      END;
      INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
    `,
  },
  {
    version: 3,
    name: "idempotency keys",
    up: IDEMPOTENCY_TABLE_SQL,
  },
  {
    version: 4,
    name: "expiry of idempotency keys",
    up: IDEMPOTENCY_INDEX_SQL,
  },
  {
    version: 5,
    name: "prefix indexes for word starts",
    // Word starts ("gro" for groceries) read one prefix posting list instead of merging every
    // word that starts so; FTS5 takes prefix= only when the table is made, so it is made again.
    up: `
      DROP TABLE notes_fts;
      CREATE VIRTUAL TABLE notes_fts USING fts5(
        title, body, content='notes', content_rowid='id', tokenize='unicode61 remove_diacritics 2',
        prefix='2 3 4'
      );
      INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
    `,
  },
];
