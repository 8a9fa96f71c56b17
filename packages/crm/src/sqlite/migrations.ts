import { IDEMPOTENCY_INDEX_SQL, IDEMPOTENCY_TABLE_SQL, type Migration } from "@toolshed/storage";

const FTS_TRIGGERS_V2 = `
CREATE TRIGGER crm_accounts_fts_insert AFTER INSERT ON crm_accounts BEGIN
  INSERT INTO crm_accounts_fts (rowid, name, domain, notes) VALUES (new.seq, new.name, new.domain, new.notes);
END;
CREATE TRIGGER crm_accounts_fts_delete AFTER DELETE ON crm_accounts BEGIN
  INSERT INTO crm_accounts_fts (crm_accounts_fts, rowid, name, domain, notes)
  VALUES ('delete', old.seq, old.name, old.domain, old.notes);
END;
CREATE TRIGGER crm_accounts_fts_update AFTER UPDATE OF name, domain, notes ON crm_accounts BEGIN
  INSERT INTO crm_accounts_fts (crm_accounts_fts, rowid, name, domain, notes)
  VALUES ('delete', old.seq, old.name, old.domain, old.notes);
  INSERT INTO crm_accounts_fts (rowid, name, domain, notes) VALUES (new.seq, new.name, new.domain, new.notes);
END;`;

/**
 * The CRM tables, oldest first. Released versions never change: a new column or index is a
 * new migration, so files written by older releases upgrade in place.
 */
export const CRM_SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "accounts with name search",
    // `seq` is the stable rowid the external-content FTS index points at; `id` is what users see.
    up: `
CREATE TABLE crm_accounts (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  tier TEXT NOT NULL CHECK (tier IN ('startup', 'growth', 'enterprise')),
  arr REAL NOT NULL CHECK (arr >= 0),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE VIRTUAL TABLE crm_accounts_fts USING fts5(
  name, content = 'crm_accounts', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER crm_accounts_fts_insert AFTER INSERT ON crm_accounts BEGIN
  INSERT INTO crm_accounts_fts (rowid, name) VALUES (new.seq, new.name);
END;
CREATE TRIGGER crm_accounts_fts_delete AFTER DELETE ON crm_accounts BEGIN
  INSERT INTO crm_accounts_fts (crm_accounts_fts, rowid, name) VALUES ('delete', old.seq, old.name);
END;
CREATE TRIGGER crm_accounts_fts_update AFTER UPDATE OF name ON crm_accounts BEGIN
  INSERT INTO crm_accounts_fts (crm_accounts_fts, rowid, name) VALUES ('delete', old.seq, old.name);
  INSERT INTO crm_accounts_fts (rowid, name) VALUES (new.seq, new.name);
END;
${IDEMPOTENCY_TABLE_SQL};`,
  },
  {
    version: 2,
    name: "domain, notes and archiving; search over domain and notes",
    up: `
ALTER TABLE crm_accounts ADD COLUMN domain TEXT;
ALTER TABLE crm_accounts ADD COLUMN notes TEXT;
ALTER TABLE crm_accounts ADD COLUMN archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1));
CREATE INDEX crm_accounts_tier_arr ON crm_accounts (tier, arr);
DROP TRIGGER crm_accounts_fts_insert;
DROP TRIGGER crm_accounts_fts_delete;
DROP TRIGGER crm_accounts_fts_update;
DROP TABLE crm_accounts_fts;
CREATE VIRTUAL TABLE crm_accounts_fts USING fts5(
  name, domain, notes, content = 'crm_accounts', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO crm_accounts_fts (crm_accounts_fts) VALUES ('rebuild');
${FTS_TRIGGERS_V2}`,
  },
  {
    version: 3,
    name: "expiry of idempotency keys",
    up: IDEMPOTENCY_INDEX_SQL,
  },
  {
    version: 4,
    name: "prefix indexes for word starts",
    // Word starts read one prefix posting list instead of merging every word that starts so;
    // FTS5 takes prefix= only when the table is made, so it is made again (the triggers stay).
    up: `
DROP TABLE crm_accounts_fts;
CREATE VIRTUAL TABLE crm_accounts_fts USING fts5(
  name, domain, notes, content = 'crm_accounts', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2',
  prefix = '2 3 4'
);
INSERT INTO crm_accounts_fts (crm_accounts_fts) VALUES ('rebuild');`,
  },
];

/** The scope of this pack's versions in `toolshed_migrations`, so packs can share one file. */
export const CRM_MIGRATION_SCOPE = "crm";
