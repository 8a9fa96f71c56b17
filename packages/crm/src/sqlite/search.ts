import { InvalidArgumentsError } from "@toolshed/errors";
import { decodeCursor, encodeCursor, fingerprint, type SqliteDatabase, toFtsQuery } from "@toolshed/storage";
import type { AccountSearch, AccountSearchPage } from "../store.js";
import { type SearchPhase, searchPhases } from "./fts-plan.js";
import { type AccountRow, accountColumns, clampLimit, toAccount } from "./rows.js";
import { prepare } from "./statements.js";

// Weights: a word in the name counts most, then the domain, then the notes.
const BM25 = "bm25(crm_accounts_fts, 10.0, 4.0, 1.0)";
const FILTERS = `AND a.arr >= @minArr AND (@maxArr IS NULL OR a.arr <= @maxArr) AND (@tier IS NULL OR a.tier = @tier)`;

/** Ids (seq) of one phase, after a position, ranked inside the index; crm_accounts is joined only to filter. */
function phaseSql(ranked: boolean, filtered: boolean): string {
  const join = filtered ? "JOIN crm_accounts a ON a.seq = crm_accounts_fts.rowid" : "";
  const where = `crm_accounts_fts MATCH @match ${filtered ? FILTERS : ""}`;
  if (!ranked) {
    return `SELECT crm_accounts_fts.rowid AS seq, 0 AS score FROM crm_accounts_fts ${join}
      WHERE ${where} AND (@afterSeq IS NULL OR crm_accounts_fts.rowid < @afterSeq)
      ORDER BY crm_accounts_fts.rowid DESC LIMIT @limit`;
  }
  return `SELECT seq, score FROM (
      SELECT crm_accounts_fts.rowid AS seq, ${BM25} AS score FROM crm_accounts_fts ${join} WHERE ${where}
    ) WHERE @afterSeq IS NULL OR score > @afterScore OR (score = @afterScore AND seq > @afterSeq)
    ORDER BY score, seq LIMIT @limit`;
}

const HIT_SELECT = `SELECT a.seq AS seq, ${accountColumns("a")}, snippet(crm_accounts_fts, -1, '[', ']', '…', 12) AS snippet
  FROM crm_accounts_fts JOIN crm_accounts a ON a.seq = crm_accounts_fts.rowid`;
const HIT_SQL = `${HIT_SELECT} WHERE crm_accounts_fts MATCH ? AND crm_accounts_fts.rowid = ?`;
const HITS_BETWEEN_SQL = `${HIT_SELECT} WHERE crm_accounts_fts MATCH ? AND crm_accounts_fts.rowid BETWEEN ? AND ?`;

type HitRow = AccountRow & { seq: number; snippet: string };

/**
 * Accounts and snippets of one phase's part of the page, in the order of `seqs`. Rowids go in as
 * BigInt: FTS5 seeks to an integer rowid, but reads every match (and compares wrongly) for a
 * float, as JS numbers bind. A newest-first run is consecutive matches, so one range query
 * reads it and expands prefix terms once, not once per hit.
 */
function readHits(db: SqliteDatabase, match: string, ranked: boolean, seqs: readonly number[]): HitRow[] {
  if (seqs.length === 0) return [];
  const rows = ranked
    ? seqs.map((seq) => prepare(db, HIT_SQL).get(match, BigInt(seq)) as HitRow)
    : (prepare(db, HITS_BETWEEN_SQL).all(match, BigInt(Math.min(...seqs)), BigInt(Math.max(...seqs))) as HitRow[]);
  const bySeq = new Map(rows.map((row) => [row.seq, row]));
  return seqs.flatMap((seq) => bySeq.get(seq) ?? []);
}
/** Where a page ended: phase, how that phase was ordered, score and seq of the last hit. */
interface Position {
  phase: number;
  ranked: boolean;
  score: number;
  seq: number;
}

/** Ranked full-text search; any text is safe because it only ever becomes quoted FTS terms. */
export function searchAccounts(db: SqliteDatabase, search: AccountSearch): AccountSearchPage {
  const match = toFtsQuery(search.text);
  if (match === undefined) return { hits: [], nextCursor: null };
  const limit = clampLimit(search.limit);
  // A cursor only continues the search it came from.
  const filter = fingerprint({
    match,
    tier: search.tier ?? null,
    minArr: search.minArr,
    maxArr: search.maxArr ?? null,
  }).slice(0, 16);
  let after: Position | undefined;
  if (search.cursor !== undefined) {
    const position = decodeCursor(search.cursor, {
      p: "position",
      r: "position",
      s: "number",
      q: "position",
      f: "string",
    });
    if (position.f !== filter) {
      throw new InvalidArgumentsError(
        "cursor belongs to another search; pass next_cursor only with the same query and filters, or omit it",
        [{ path: "cursor", message: "must be next_cursor from the previous page of this same search" }],
      );
    }
    after = { phase: Number(position.p), ranked: position.r === 1, score: Number(position.s), seq: Number(position.q) };
  }
  const filtered = search.tier !== undefined || search.minArr > 0 || search.maxArr !== undefined;
  // One read transaction: the plan, the ids and the page are one snapshot.
  return db.transaction((): AccountSearchPage => {
    const phases: SearchPhase[] = searchPhases(db, search.text);
    const found: Array<Position & { match: string }> = [];
    for (let phase = after?.phase ?? 0; phase < phases.length && found.length <= limit; phase++) {
      const { match: phaseMatch, ranked: planned } = phases[phase] as SearchPhase;
      const from = after?.phase === phase ? after : undefined;
      const ranked = from ? from.ranked : planned;
      const rows = prepare(db, phaseSql(ranked, filtered)).all({
        match: phaseMatch,
        minArr: search.minArr,
        maxArr: search.maxArr ?? null,
        tier: search.tier ?? null,
        afterScore: from?.score ?? null,
        afterSeq: from === undefined ? null : BigInt(from.seq),
        limit: limit + 1 - found.length,
      }) as Array<{ seq: number; score: number }>;
      for (const { seq, score } of rows) found.push({ phase, ranked, score, seq, match: phaseMatch });
    }
    const page = found.slice(0, limit);
    const last = page.at(-1);
    const nextCursor =
      found.length > limit && last
        ? encodeCursor({ p: last.phase, r: last.ranked ? 1 : 0, s: last.score, q: last.seq, f: filter })
        : null;
    const hits = [];
    for (let phase = 0; phase < phases.length; phase++) {
      const part = page.filter((p) => p.phase === phase);
      const first = part[0];
      if (first === undefined) continue;
      const rows = readHits(
        db,
        first.match,
        first.ranked,
        part.map((p) => p.seq),
      );
      hits.push(...rows.map((row) => ({ account: toAccount(row), snippet: row.snippet })));
    }
    return { hits, nextCursor };
  })();
}
