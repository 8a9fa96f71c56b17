import { PG_IDEMPOTENCY_INDEX_SQL, PG_IDEMPOTENCY_TABLE_SQL, type PgMigration } from "@toolshed/storage/postgres";

// Lower-case Latin letters with diacritics and their bare letters (NFKD without marks), so that
// "invoicé" finds "invoice" as the SQLite store's remove_diacritics does. Baked into stored
// vectors: never change it in place, add a migration.
const FOLD_FROM =
  "àáâãäåçèéêëìíîïñòóôõöùúûüýÿāăąćĉċčďēĕėęěĝğġģĥĩīĭįĵķĺļľńņňōŏőŕŗřśŝşšţťũūŭůűųŵŷźżžſơưǎǐǒǔǖǘǚǜǟǡǧǩǫǭǰǵǹǻȁȃȅȇȉȋȍȏȑȓȕȗșțȟȧȩȫȭȯȱȳ";
const FOLD_TO =
  "aaaaaaceeeeiiiinooooouuuuyyaaaccccdeeeeegggghiiiijklllnnnooorrrssssttuuuuuuwyzzzsouaiouuuuuaagkoojgnaaaeeiioorruusthaeooooy";

/** Text search configuration of the tickets tables: English stems, no stop words. */
export const TICKETS_TS_CONFIG = "toolshed_tickets_search";
/** SQL function that folds a document and turns ASCII punctuation into spaces (documents only). */
export const TICKETS_WORDS_FUNCTION = "toolshed_tickets_words";
/** SQL function that lower-cases and strips diacritics; used for documents and queries alike. */
export const TICKETS_FOLD_FUNCTION = "toolshed_tickets_fold";

/**
 * Versions of the tickets tables on PostgreSQL. Ids start at T-1001 like on SQLite; the search
 * vector (title weight A, body weight B) is a generated column with a GIN index.
 */
export const TICKETS_PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: "tickets, comments and idempotency keys",
    up: `
      CREATE TABLE tickets (
        num INTEGER GENERATED ALWAYS AS IDENTITY (START WITH 1001) PRIMARY KEY,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        priority TEXT NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
        resolution TEXT,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL
      );
      CREATE TABLE ticket_comments (
        id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        ticket_num INTEGER NOT NULL REFERENCES tickets (num) ON DELETE CASCADE,
        body TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL
      );
      CREATE INDEX ticket_comments_by_ticket ON ticket_comments (ticket_num, id);
      CREATE INDEX tickets_by_updated ON tickets (updated_at DESC, num DESC);
      CREATE INDEX tickets_by_status_updated ON tickets (status, updated_at DESC, num DESC);
      ${PG_IDEMPOTENCY_TABLE_SQL};
    `,
  },
  {
    version: 2,
    name: "full-text search over title and body",
    up: `
      -- The english_stem dictionary drops stop words, so "NOT password" would match "password";
      -- SQLite's porter tokenizer keeps every word. Same stemmer, no stop word list.
      CREATE TEXT SEARCH DICTIONARY toolshed_tickets_stem (TEMPLATE = snowball, Language = english);
      CREATE TEXT SEARCH CONFIGURATION ${TICKETS_TS_CONFIG} (COPY = simple);
      ALTER TEXT SEARCH CONFIGURATION ${TICKETS_TS_CONFIG}
        ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword,
                          hword_asciipart, hword_part, hword_numpart
        WITH toolshed_tickets_stem;
      CREATE FUNCTION ${TICKETS_FOLD_FUNCTION}(value TEXT) RETURNS TEXT
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        RETURN translate(lower(value), '${FOLD_FROM}', '${FOLD_TO}');
      ALTER TABLE tickets ADD COLUMN search TSVECTOR GENERATED ALWAYS AS (
        setweight(to_tsvector('${TICKETS_TS_CONFIG}', ${TICKETS_FOLD_FUNCTION}(title)), 'A') ||
        setweight(to_tsvector('${TICKETS_TS_CONFIG}', ${TICKETS_FOLD_FUNCTION}(body)), 'B')
      ) STORED;
      CREATE INDEX tickets_search ON tickets USING GIN (search);
    `,
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
      CREATE FUNCTION ${TICKETS_WORDS_FUNCTION}(value TEXT) RETURNS TEXT
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        RETURN regexp_replace(${TICKETS_FOLD_FUNCTION}(value), '[!-/:-@\\[-\`{-~]+', ' ', 'g');
      ALTER TABLE tickets DROP COLUMN search;
      ALTER TABLE tickets ADD COLUMN search TSVECTOR GENERATED ALWAYS AS (
        setweight(to_tsvector('${TICKETS_TS_CONFIG}', ${TICKETS_WORDS_FUNCTION}(title)), 'A') ||
        setweight(to_tsvector('${TICKETS_TS_CONFIG}', ${TICKETS_WORDS_FUNCTION}(body)), 'B')
      ) STORED;
      CREATE INDEX tickets_search ON tickets USING GIN (search);
    `,
  },
];
