import type { SqliteDatabase } from "@toolshed/storage";
import { prepare } from "./statements.js";

// A word in more accounts than this is common. bm25 reads the whole posting list of every term
// (it counts the rows each one is in), so a query with a common word is answered newest first
// instead, and a common word is not expanded to its longer forms: the work per query stays bounded.
export const COMMON_ROWS = 2000;
const COMMON_PROBE_SQL = `SELECT 1 FROM crm_accounts_fts WHERE crm_accounts_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ${COMMON_ROWS}`;

export interface SearchPhase {
  /** FTS5 MATCH expression; every word quoted, so user text is never syntax. */
  match: string;
  /** By bm25 when true, newest first when false. */
  ranked: boolean;
}

/**
 * How to answer a search: first accounts that have every word as a whole word, then accounts
 * that have them only as word starts ("logist" finds "logistics"). A phase is ranked by bm25
 * when none of its terms is common.
 */
export function searchPhases(db: SqliteDatabase, text: string): SearchPhase[] {
  const words = [...new Set(text.normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 16);
  if (words.length === 0) return [];
  const isCommon = (term: string) => prepare(db, COMMON_PROBE_SQL).get(term) !== undefined;
  const exact = words.map((w) => `"${w}"`);
  const common = exact.map(isCommon);
  const anyCommon = common.includes(true);
  const phases = [{ match: exact.join(" "), ranked: !anyCommon }];
  if (common.includes(false)) {
    const starts = words.map((w, i) => (common[i] ? exact[i] : `"${w}"*`));
    const broadStart = words.some((w, i) => !common[i] && isCommon(`"${w}"*`));
    phases.push({ match: `(${starts.join(" ")}) NOT (${exact.join(" ")})`, ranked: !anyCommon && !broadStart });
  }
  return phases;
}
