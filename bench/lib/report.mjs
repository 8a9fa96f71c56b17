// The Markdown that goes to stdout and to docs/benchmarks-search.md.
import { QUERY_KINDS } from "./queries.mjs";
import { count, ms } from "./stats.mjs";

// `align`: one letter per column, l or r.
const table = (head, rows, align) =>
  [`| ${head.join(" | ")} |`, `|${head.map((_, i) => (align[i] === "r" ? "--:" : "---")).join("|")}|`]
    .concat(rows.map((r) => `| ${r.join(" | ")} |`))
    .join("\n");

function seedingCell(part) {
  return part.rows === 0 ? "–" : `${count(part.rows)} at ${count(part.rate)}/s`;
}

function seedingTable(results) {
  return table(
    [
      "pack",
      "rows",
      "public API",
      "store's SQL, one transaction, then FTS rebuild",
      "total s",
      "rows/s overall",
      "file MB",
    ],
    results.map(({ pack, seed }) => [
      pack,
      count(seed.rows),
      seedingCell(seed.api),
      seedingCell(seed.sql),
      (seed.ms / 1000).toFixed(1),
      count(seed.rows / (seed.ms / 1000)),
      (seed.bytes / 1e6).toFixed(0),
    ]),
    "lrrrrrr",
  );
}

function latencyTable(results) {
  const rows = [];
  for (const { pack, rows: size, tool, timings } of results) {
    const paths = [
      [`\`${tool}\` via the runtime`, timings.tool.all],
      ["store search method", timings.store.all],
    ];
    if (timings.like) {
      paths.push(
        ["LIKE '%word%' … LIMIT 10", timings.like.all],
        ["LIKE '%word%' … ORDER BY title matches LIMIT 10", timings.likeRanked.all],
      );
    }
    for (const [label, s] of paths) {
      rows.push([
        pack,
        count(size),
        label,
        count(s.count),
        ms(s.p50),
        ms(s.p99),
        ms(s.mean),
        ms(s.max),
        count(s.perSecond),
      ]);
    }
  }
  return table(
    ["pack", "rows", "path", "queries", "p50 ms", "p99 ms", "mean ms", "max ms", "queries/s"],
    rows,
    "lrlrrrrrr",
  );
}

function kindTable(results) {
  // The PostgreSQL run has no LIKE paths; it shows the tool's worst call instead.
  const like = results.every((r) => r.timings.like);
  const rows = [];
  for (const { pack, rows: size, timings, hitsByKind } of results) {
    for (const { kind } of QUERY_KINDS) {
      const store = timings.store.byKind[kind];
      const tool = timings.tool.byKind[kind];
      if (!store) continue;
      const hits = hitsByKind[kind];
      const likeCells = like
        ? [
            ms(timings.like.byKind[kind]?.p50),
            ms(timings.like.byKind[kind]?.max),
            ms(timings.likeRanked.byKind[kind]?.p50),
          ]
        : [];
      const hitCells = !hits
        ? "–"
        : like
          ? `${(hits.fts / hits.n).toFixed(1)} / ${(hits.like / hits.n).toFixed(1)}`
          : (hits.fts / hits.n).toFixed(1);
      rows.push([
        pack,
        count(size),
        kind,
        ms(tool?.p50),
        ...(like ? [] : [ms(tool?.max)]),
        ms(store.p50),
        ms(store.max),
        ...likeCells,
        hits ? count(hits.matched / hits.n) : "–",
        hitCells,
      ]);
    }
  }
  return table(
    [
      "pack",
      "rows",
      "query kind",
      "tool p50",
      ...(like ? [] : ["tool max"]),
      "store p50",
      "store max",
      ...(like ? ["LIKE p50", "LIKE max", "LIKE ranked p50"] : []),
      "rows matched",
      like ? "hits FTS / LIKE" : "hits",
    ],
    rows,
    like ? "lrlrrrrrrrr" : "lrlrrrrrr",
  );
}

function createTable(results) {
  return table(
    ["pack", "rows", "creates", "p50 ms", "max ms"],
    results.map(({ pack, rows, create }) => [pack, count(rows), count(create.count), ms(create.p50), ms(create.max)]),
    "lrrrr",
  );
}

// Targets: the search tool's p50 under 20 ms (issue 5) and its p99 under 50 ms (issue 35) at 1M rows.
const TARGET_MS = 20;
const TARGET_P99_MS = 50;

function summaryTable(results) {
  const like = results.every((r) => r.timings.like);
  return table(
    [
      "pack",
      "rows",
      "tool p50",
      "tool p99",
      "store p50",
      "store p99",
      ...(like ? ["LIKE p50", "LIKE p99", "LIKE ranked p50", "LIKE ranked p99"] : []),
      `tool p50 < ${TARGET_MS} ms`,
      `tool p99 < ${TARGET_P99_MS} ms`,
    ],
    results.map(({ pack, rows, timings: t }) => [
      pack,
      count(rows),
      ms(t.tool.all.p50),
      ms(t.tool.all.p99),
      ms(t.store.all.p50),
      ms(t.store.all.p99),
      ...(like ? [ms(t.like.all.p50), ms(t.like.all.p99), ms(t.likeRanked.all.p50), ms(t.likeRanked.all.p99)] : []),
      t.tool.all.p50 < TARGET_MS ? "yes" : "**no**",
      t.tool.all.p99 < TARGET_P99_MS ? "yes" : "**no**",
    ]),
    like ? "lrrrrrrrrrll" : "lrrrrrll",
  );
}

// Measured on this machine with the stores as they were before the search rework (commit
// 9358f8d: bm25 over every match, ORDER BY title, snippet for every match), same data and queries.
const BEFORE = [
  "| pack | rows | tool p50 | tool p99 | store p50 | store p99 |",
  "|---|--:|--:|--:|--:|--:|",
  "| notes | 100,000 | 14.5 | 72.6 | 11.3 | 57.5 |",
  "| tickets | 100,000 | 11.0 | 69.0 | 10.0 | 69.6 |",
  "| crm | 100,000 | 6.39 | 185 | 6.88 | 188 |",
  "| notes | 1,000,000 | 237 | – | 460 | – |",
].join("\n");

/** The Checks section: what held, or every check that failed. */
function checksText(failures) {
  return failures.length === 0
    ? "Every query answered without an error; tool and store returned the same hits in the same order;" +
        " common words filled the limit; words taken from a row found at least one row; a word no row" +
        " contains found none; every hit contains every query word (the tickets pack stems, so there the" +
        " first three letters)."
    : `${failures.length} check(s) failed:\n\n${failures.map((f) => `- ${f}`).join("\n")}`;
}

export function renderReport({ machine, options, results, failures }) {
  if (machine.postgres) return renderPostgresReport({ machine, options, results, failures });
  const lines = [
    "# Search benchmark",
    "",
    `Generated by \`bench/search.mjs\` (\`npm run bench\` at the root, or \`npm run bench\` in \`bench/\` after a build)` +
      ` on ${machine.date}.`,
    "",
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB RAM, ${machine.os}`,
    `- Node ${machine.node}, SQLite ${machine.sqlite} (better-sqlite3); load average at start ${machine.load}` +
      " (1 / 5 / 15 min)",
    `- Rows: ${options.scales.map(count).join(", ")} per pack, one size after the other, each pack in its own temporary file (WAL, as the stores open it);` +
      " text from a seeded PRNG: each pack's word list (~300 real words, Zipf-like, the most common in about 40%" +
      " of rows) mixed with 100,000 made-up names (most in 1–3 rows of 100,000)",
    `- Queries: ${count(options.queries)} timed per path after ${options.warmup} warm-up calls, cycling through` +
      ` ${options.distinct} distinct queries per pack; limit 10; one caller, one call at a time`,
    "",
    "## Summary",
    "",
    summaryTable(results),
    "",
    `Milliseconds, all query kinds together. The targets are the search tool's p50 under ${TARGET_MS} ms and its p99 under ${TARGET_P99_MS} ms at 1M rows. Since the SQLite indexes have FTS5 prefix indexes for 2- to 4-letter word starts (notes migration 5, tickets 5, CRM 4), a word-start query reads one posting list; before, it merged every word that starts so (at 1M rows: p50 32–43 ms, max up to 251 ms, the p99 of 65–152 ms).`,
    "",
    "### Before this rework",
    "",
    BEFORE,
    "",
    "Earlier runs of this benchmark (100,000 rows: the previous report; 1M rows: 60 queries per path, on a machine" +
      " loaded by other work; that run was stopped after notes, so p99 is missing), with every FTS match ranked by bm25 and joined to its row before the LIMIT.",
    "",
    "## How the stores search",
    "",
    "Each store answers in at most two phases: rows that have every query word as a whole word, then (to fill the" +
      " page) rows that have them only as word starts (`panc` finds `pancakes`). Ids are ranked inside the FTS5 index" +
      " (`ORDER BY bm25(…), rowid LIMIT k`); only the page is joined to its table and gets a snippet. bm25 reads the" +
      " whole posting list of every term (it counts the rows each is in), so a word found in more than 2,000 rows" +
      " (one index probe, `ORDER BY rowid DESC LIMIT 1 OFFSET 2000`) is common: a query with a common word lists" +
      " its newest matches first instead of ranking them, and a common word is not expanded to longer words. Ties" +
      " go by row id (they went by title before).",
    "",
    "## Seeding",
    "",
    seedingTable(results),
    "",
    `Rows go through the pack's public create method while it keeps up at least ${count(options.minRate)} rows/s` +
      " (checked every 5,000 rows); the rest go in with the same INSERT statements the store runs, in one" +
      " transaction that drops the FTS insert trigger, inserts, runs FTS5 `rebuild` and puts the trigger back" +
      " (row-by-row indexing runs at about 3,000 rows/s at 1M rows). No pack has a bulk-create method.",
    "",
    ...results
      .filter(({ seed }) => seed.slowAt)
      .map(
        ({ pack, seed }) =>
          `- ${pack}: the public API ran at ${count(seed.slowAt.rate)} rows/s in the window ending at row` +
          ` ${count(seed.slowAt.row)}.`,
      ),
    "",
    "## Search latency",
    "",
    latencyTable(results),
    "",
    "- Tool: `client.callTool` from an SDK `Client` connected in memory to `createServer` from" +
      " `@toolshed/server` with the pack mounted: argument validation, the handler, output validation," +
      " JSON text and the JSON-RPC round trip, with the runtime's per-call log line going to /dev/null.",
    "- Store: the pack's search method called directly (`searchNotes`, `searchTickets`, `searchAccounts`).",
    "- LIKE: `SELECT … WHERE (title LIKE '%w%' OR body LIKE '%w%') AND … LIMIT 10` over every word, on the" +
      " same file (CRM: name, domain, notes). Unranked, it stops at the first 10 rows that match: quick for" +
      " common words, a full scan for rare ones. Ranked (title matches first, the crudest" +
      " ranking: `ORDER BY (title LIKE '%w%') + … DESC`), it reads every row for every query.",
    '- `search_tickets` is called with `status: "any"` so that all three paths search the same rows.',
    "",
    "## By query kind",
    "",
    kindTable(results),
    "",
    "Milliseconds (p50 unless marked). Rows matched: the average number of rows the prefix FTS query" +
      " (`toFtsQuery`) matches. Hits: the average number returned, of at most 10. At 1M rows and more the LIKE" +
      " paths run each distinct query once (3 warm-up calls): a LIKE query then reads about a second of rows.",
    "",
    "## Creating one more row at each size",
    "",
    createTable(results),
    "",
    "One row at a time through the public create method (`createNote`, `createTicket`, `createAccount`)," +
      " after the searches.",
    "",
    "## Checks",
    "",
    checksText(failures),
    "",
  ];
  return lines.join("\n");
}

// Measured on this machine (2026-12-06) before the ranking was bounded: same rows and queries.
const PG_BEFORE = [
  "| pack | rows | tool p50 | tool p99 | store p50 | store p99 |",
  "|---|--:|--:|--:|--:|--:|",
  "| notes | 100,000 | 29.1 | 176 | 26.8 | 176 |",
  "| tickets | 100,000 | 20.8 | 115 | 24.5 | 140 |",
  "| crm | 100,000 | 11.2 | 55.1 | 10.8 | 50.8 |",
].join("\n");

/** The same benchmark on the PostgreSQL stores (`--database-url`): no LIKE paths. */
function renderPostgresReport({ machine, options, results, failures }) {
  const pg = machine.postgres;
  const lines = [
    "# Search benchmark on PostgreSQL",
    "",
    `Generated by \`bench/search.mjs --database-url …\` on ${machine.date}.`,
    "",
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB RAM, ${machine.os}`,
    `- Node ${machine.node}, PostgreSQL ${pg.version} on the same machine (shared_buffers ${pg.shared_buffers},` +
      ` work_mem ${pg.work_mem}, jit ${pg.jit}, ${pg.parallel} parallel workers per gather); load average at start ${machine.load}`,
    `- Rows: ${options.scales.map(count).join(", ")} per pack, each pack in a new schema dropped afterwards; the same rows and queries as the SQLite run (docs/benchmarks-search.md)`,
    `- Queries: ${count(options.queries)} timed per path after ${options.warmup} warm-up calls, cycling through` +
      ` ${options.distinct} distinct queries per pack; limit 10; one caller, one call at a time`,
    "",
    "## Summary",
    "",
    summaryTable(results),
    "",
    `Milliseconds, all query kinds together; the targets are the search tool's p50 under ${TARGET_MS} ms and its p99 under ${TARGET_P99_MS} ms at 1M rows.`,
    "",
    "### Before bounding the ranking",
    "",
    PG_BEFORE,
    "",
    "The same benchmark on the stores as they were at commit 26d0d90 (every match ranked), 100 queries per path. At 1M rows a common word took the notes store 1.0–1.4 s, a word start (`gro`) 1.0 s, two common words 1.6 s; the full run at 1M was not finished.",
    "",
    "## How the stores search",
    "",
    "A stored `tsvector` with a GIN index (ASCII punctuation splits words, as SQLite's tokenizer does: `ERR-4581` is `err` and `4581`). Ranking (`ts_rank_cd`) reads the tsvector of every match, and the rows come from the heap one page each: about 3 µs per match when cached and up to 40 µs when PostgreSQL reads the page from the OS, so a word in 400,000 of 1M rows took over a second. And a prefix term (`word:*`) makes GIN collect the row ids of every longer word before anything is ranked: about 100 ms for a common word at 1M rows. Each store therefore answers in at most three steps:",
    "",
    "1. Past 4,000 rows, the newest 4,000 (by id, ticket number, or the CRM's creation order `seq`) are read backwards through the primary key and checked against the query (every word as a prefix); if they hold a full page of hits (CRM: more than a page, so `next_cursor` can go on by creation order), those are the answer, newest first, as the SQLite stores answer a common word. This costs at most 4,000 rows read in order (about 10 ms).",
    "2. Otherwise rows with every word whole are ranked (at most 1,000 matches, any, through the GIN index; whole terms let GIN skip through the posting lists of common words).",
    "3. If that does not fill the page, rows with the words as word starts fill it (ranked the same way, leaving out step 2's rows), except that a word PostgreSQL's statistics count in more than 2,000 rows (its most common elements, gathered by ANALYZE) stays whole: the SQLite stores do not expand a common word either. The CRM's `next_cursor` says which step it goes on in.",
    "",
    "Tables of up to 4,000 rows are always ranked over every match, as before. Snippets (`ts_headline`) are made for the page only.",
    "",
    "## Seeding",
    "",
    seedingTable(results),
    "",
    "Rows go through the pack's public create method while it keeps up 5,000 rows/s (on PostgreSQL it does not: one transaction and round trip per row), then with the store's INSERT statements, 5,000 rows per `INSERT … SELECT FROM unnest(…)`, in one transaction that drops the GIN index, inserts and creates the index again from its own definition (`maintenance_work_mem` 512 MB for that transaction), followed by `VACUUM ANALYZE`. Size: the schema's tables with their indexes and TOAST.",
    "",
    "## Search latency",
    "",
    latencyTable(results),
    "",
    "- Tool: `client.callTool` from an SDK `Client` connected in memory to `createServer` with the pack mounted on its PostgreSQL store (one pool of 10 connections, as `--database-url` opens it).",
    "- Store: the pack's search method called directly. No LIKE paths: they are measured on SQLite.",
    "",
    "## By query kind",
    "",
    kindTable(results),
    "",
    "Milliseconds. Rows matched: the average number of rows the store's tsquery matches; hits: the average returned, of at most 10.",
    "",
    "## Creating one more row at each size",
    "",
    createTable(results),
    "",
    "## Checks",
    "",
    checksText(failures),
    "",
  ];
  return lines.join("\n");
}
