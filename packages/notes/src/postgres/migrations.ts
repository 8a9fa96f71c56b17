import { PG_IDEMPOTENCY_INDEX_SQL, PG_IDEMPOTENCY_TABLE_SQL, type PgMigration } from "@toolshed/storage/postgres";

/** Text search configuration of the notes: `simple` (no stemming, no stop words) plus accent folding. */
export const NOTES_TS_CONFIG = "notes_search";

/** SQL function that turns ASCII punctuation into spaces before a text is parsed into words. */
export const NOTES_WORDS_FUNCTION = "notes_search_words";

/** Append only: a released migration never changes, so older databases upgrade in place. */
export const NOTES_PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: "notes, tags and full-text search",
    // unaccent is a trusted extension (no superuser needed). It lives in one schema per database;
    // installing it in public keeps it out of the store's schema, so dropping one store's schema
    // cannot take the dictionary away from another. A racing install elsewhere is fine.
    // Titles and tags use the "C" collation: byte order, as SQLite sorts them, whatever the
    // database's locale, so pages and cursors are the same on both stores.
    up: `
      DO $$
      DECLARE ext_schema name;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'unaccent') THEN
          BEGIN
            CREATE EXTENSION unaccent SCHEMA public;
          EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
          END;
        END IF;
        SELECT n.nspname INTO ext_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
          WHERE e.extname = 'unaccent';
        CREATE TEXT SEARCH CONFIGURATION ${NOTES_TS_CONFIG} (COPY = pg_catalog.simple);
        EXECUTE format(
          'ALTER TEXT SEARCH CONFIGURATION ${NOTES_TS_CONFIG} ALTER MAPPING FOR word, hword, hword_part, numword, numhword, hword_numpart WITH %I.unaccent, simple',
          ext_schema
        );
      END $$;
      CREATE TABLE notes (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        title TEXT COLLATE "C" NOT NULL UNIQUE,
        body TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 1,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        search TSVECTOR GENERATED ALWAYS AS (
          setweight(to_tsvector('${NOTES_TS_CONFIG}', title), 'A') ||
          setweight(to_tsvector('${NOTES_TS_CONFIG}', body), 'B')
        ) STORED
      );
      CREATE INDEX notes_search_gin ON notes USING GIN (search);
      CREATE INDEX notes_title_lower ON notes (lower(title));
      CREATE TABLE note_tags (
        note_id BIGINT NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
        tag TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (note_id, tag)
      );
      CREATE INDEX note_tags_by_tag ON note_tags (tag, note_id);
    `,
  },
  {
    version: 2,
    name: "idempotency keys",
    up: PG_IDEMPOTENCY_TABLE_SQL,
  },
  {
    version: 3,
    name: "expiry of idempotency keys",
    up: PG_IDEMPOTENCY_INDEX_SQL,
  },
  {
    version: 4,
    name: "punctuation splits words",
    // PostgreSQL's parser kept "ERR-4581" as the words "err" and "-4581", "v2.18" and "a/b" whole,
    // so "4581" or "18" found nothing; SQLite's tokenizer splits them. ASCII punctuation becomes a
    // space before parsing, as in the CRM store. The vectors are rebuilt (the table is rewritten).
    up: `
      CREATE FUNCTION ${NOTES_WORDS_FUNCTION}(value TEXT) RETURNS TEXT
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        RETURN regexp_replace(value, '[!-/:-@\\[-\`{-~]+', ' ', 'g');
      ALTER TABLE notes DROP COLUMN search;
      ALTER TABLE notes ADD COLUMN search TSVECTOR GENERATED ALWAYS AS (
        setweight(to_tsvector('${NOTES_TS_CONFIG}', ${NOTES_WORDS_FUNCTION}(title)), 'A') ||
        setweight(to_tsvector('${NOTES_TS_CONFIG}', ${NOTES_WORDS_FUNCTION}(body)), 'B')
      ) STORED;
      CREATE INDEX notes_search_gin ON notes USING GIN (search);
    `,
  },
];
