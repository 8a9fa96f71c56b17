import { PG_IDEMPOTENCY_INDEX_SQL, PG_IDEMPOTENCY_TABLE_SQL, type PgMigration } from "@toolshed/storage/postgres";

// Accents are folded (NFKD, combining marks dropped) and ASCII punctuation becomes a space, so
// "globex.io" is the words globex and io and "cafe" finds "Café", as SQLite's unicode61 tokenizer
// does. Built-ins only: no extension (unaccent) that needs privileges or lives outside the schema.
// Each function is self-contained, so no call depends on the caller's search_path.
const MARKS = "'[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]'";
const FOLD_FUNCTIONS = `
CREATE FUNCTION crm_unaccent(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT regexp_replace(normalize(t, NFKD), ${MARKS}, '', 'g')
$$;
CREATE FUNCTION crm_search_text(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace(regexp_replace(normalize(coalesce(t, ''), NFKD), ${MARKS}, '', 'g'), '[!-/:-@\\[-\`{-~]+', ' ', 'g')
$$`;

/**
 * The CRM tables on PostgreSQL, oldest first. Released versions never change: a new column or
 * index is a new migration. Ids and name keys use the "C" collation so that ordering and prefix
 * ranges compare bytes, as in SQLite.
 */
export const CRM_PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: "accounts with weighted full-text search",
    up: `
${FOLD_FUNCTIONS};
CREATE TABLE crm_accounts (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT COLLATE "C" NOT NULL UNIQUE,
  tier TEXT NOT NULL CHECK (tier IN ('startup', 'growth', 'enterprise')),
  arr DOUBLE PRECISION NOT NULL CHECK (arr >= 0),
  domain TEXT,
  notes TEXT,
  archived BOOLEAN NOT NULL DEFAULT false,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  search TSVECTOR GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', crm_search_text(name)), 'A') ||
    setweight(to_tsvector('simple', crm_search_text(domain)), 'B') ||
    setweight(to_tsvector('simple', crm_search_text(notes)), 'C')
  ) STORED
);
CREATE INDEX crm_accounts_search ON crm_accounts USING GIN (search);
CREATE INDEX crm_accounts_tier_arr ON crm_accounts (tier, arr);
${PG_IDEMPOTENCY_TABLE_SQL};`,
  },
  {
    version: 2,
    name: "expiry of idempotency keys",
    up: PG_IDEMPOTENCY_INDEX_SQL,
  },
  {
    version: 3,
    name: "creation order of accounts",
    // Ids are random; search answers a common query newest first, so rows need an order of
    // creation. Existing rows are numbered in table order.
    up: `
ALTER TABLE crm_accounts ADD COLUMN seq BIGINT GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX crm_accounts_seq ON crm_accounts (seq);`,
  },
];
