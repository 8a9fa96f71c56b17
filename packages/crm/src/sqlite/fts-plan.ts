import { type FtsSearchPhase, planFtsSearch, type SqliteDatabase } from "@toolshed/storage";
import { prepare } from "./statements.js";

// A word in more accounts than this is common. bm25 reads the whole posting list of every term
// (it counts the rows each one is in), so a query with a common word is answered newest first
// instead, and a common word is not expanded to its longer forms: the work per query stays bounded.
export const COMMON_ROWS = 2000;
const COMMON_PROBE_SQL = `SELECT 1 FROM crm_accounts_fts WHERE crm_accounts_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ${COMMON_ROWS}`;

export type SearchPhase = FtsSearchPhase;

/** The search phases for `text`, with the commonness of each term probed in the index. */
export function searchPhases(db: SqliteDatabase, text: string): SearchPhase[] {
  return planFtsSearch(text, (term) => prepare(db, COMMON_PROBE_SQL).get(term) !== undefined);
}
