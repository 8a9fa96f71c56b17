// docs/benchmarks.md from the results of one run-all: a table and a chart per benchmark, ratios to
// each reference measured in the same run, the targets from issue 5 and of the 2026-07-28 era,
// the 2025-era rows against the report this run replaces, the machine.
import { readFileSync } from "node:fs";
import { barChart } from "./charts/index.mjs";
import { summary } from "./harness/stats.mjs";

/** A 2025-era row below this share of its median in the previous report counts as regressed. */
export const REGRESSION_FLOOR = 0.9;

const fmt = (v, digits = 0) =>
  Number.isFinite(v)
    ? v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "n/a";
const pct = (v) => (Number.isFinite(v) ? `±${Math.round((v * 100) / 2)}%` : "n/a");
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "n/a");
const range = (s, digits = 0) => `${fmt(s.min, digits)}–${fmt(s.max, digits)}`;

function table(header, rows) {
  const align = header.map((_h, i) => (i === 0 ? "---" : "--:"));
  return [header, align, ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
}

/** One chart, saved through `addChart`, and the Markdown that embeds it. */
function chart(addChart, name, spec) {
  const path = addChart(name, barChart(spec));
  return path ? `![${spec.title}](${path})` : "";
}

function httpSection(http, addChart, previous, quick) {
  const refs = http.contenders.filter((c) => c.reference);
  const out = [
    "## HTTP throughput and latency",
    "",
    `tools/call over Streamable HTTP (JSON answers), ${http.connections} connections, ${http.seconds} s measured after a warm-up, ${http.rounds} rounds; in each round every contender is started fresh and the order rotates. Spread: half the min–max range over rounds, as a share of the median. Ratios: Toolshed's median req/s divided by the reference's.`,
    "",
    'Rows marked 2026-07-28 are loaded with 2026-07-28 requests: `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method` and `Mcp-Name` headers and the `_meta` envelope (protocol version, client capabilities); every answer must also say `resultType: "complete"`. The other rows get 2025 requests (`MCP-Protocol-Version: 2025-06-18`, no envelope, no initialize for the stateless servers). The SDK v2 rows are one `createMcpHandler` process behind a small node:http adapter: its modern path for 2026-07-28, its default legacy stateless serving (server and transport per request, SSE answers) for 2025. Its factory runs on every request, as the SDK intends; the schemas are built once.',
    "",
  ];
  for (const tool of http.tools) {
    const stats = Object.fromEntries(
      http.contenders.map((c) => {
        const runs = http.runs[c.id][tool];
        return [
          c.id,
          {
            rps: summary(runs.map((r) => r.rps)),
            p50: summary(runs.map((r) => r.p50)),
            p99: summary(runs.map((r) => r.p99)),
          },
        ];
      }),
    );
    const rows = http.contenders.map((c) => {
      const s = stats[c.id];
      return [
        c.label,
        fmt(s.rps.median),
        range(s.rps),
        pct(s.rps.spread),
        fmt(s.p50.median, 1),
        fmt(s.p99.median, 1),
        ...refs.map((r) => ratio(s.rps.median, stats[r.id].rps.median)),
      ];
    });
    out.push(
      `### \`${tool}\``,
      "",
      table(
        ["contender", "req/s (median)", "min–max", "spread", "p50 ms", "p99 ms", ...refs.map((r) => `× ${r.label}`)],
        rows,
      ),
      "",
      chart(addChart, `http-${tool}`, {
        title: `HTTP tools/call ${tool}: requests per second`,
        unit: "req/s, median; whisker min–max",
        rows: http.contenders.map((c) => ({
          label: c.label,
          ...stats[c.id].rps,
          highlight: c.id.startsWith("toolshed"),
        })),
      }),
      "",
    );
  }
  out.push(...previousSection(http, previous, quick));
  return out.join("\n");
}

/**
 * Every 2025-era row of this run next to the same row (by label) of the previous report:
 * `{ tool, label, id, now, before: { median, min, max }, ratio, regressed }`.
 */
export function legacyComparison(http, previous) {
  if (!http || !previous) return [];
  const rows = [];
  for (const tool of http.tools) {
    for (const c of http.contenders.filter((c) => c.era !== "modern")) {
      const before = previous.tools[tool]?.[c.label];
      if (!before) continue;
      const now = summary(http.runs[c.id][tool].map((r) => r.rps)).median;
      const ratio = now / before.median;
      rows.push({ tool, label: c.label, id: c.id, now, before, ratio, regressed: !(ratio >= REGRESSION_FLOOR) });
    }
  }
  return rows;
}

/** Why a comparison with the previous report says nothing, or undefined when it does. */
function notComparable(previous, quick) {
  if (quick) return "this is a quick run";
  if (previous.quick) return "the previous report came from a quick run";
  return undefined;
}

function previousSection(http, previous, quick) {
  const out = ["### 2025 era against the previous report", ""];
  const rows = legacyComparison(http, previous);
  if (rows.length === 0) {
    out.push(
      previous
        ? `No 2025-era row of this run is in ${previous.file}.`
        : "No previous report to compare with (or it had no HTTP figures).",
      "",
    );
    return out;
  }
  const why = notComparable(previous, quick);
  out.push(
    `Median req/s of each 2025-era row against the same row of the report this run replaced (generated ${previous.date}), read before the run started. Regressed: below ${REGRESSION_FLOOR}× the previous median. raw node:http has no Toolshed code in it: when it moved as much, the machine moved.${why ? ` Not comparable: ${why}.` : ""}`,
    "",
    table(
      ["contender", "tool", "before (median)", "before min–max", "this run", "× before", "regressed"],
      rows.map((r) => [
        r.label,
        `\`${r.tool}\``,
        fmt(r.before.median),
        range(r.before),
        fmt(r.now),
        `${r.ratio.toFixed(3)}×`,
        why ? "n/a" : r.regressed ? "**yes**" : "no",
      ]),
    ),
    "",
  );
  return out;
}

function memorySection(http, addChart) {
  const refs = http.contenders.filter((c) => c.reference);
  const stats = Object.fromEntries(
    http.contenders.map((c) => {
      const m = http.memory[c.id];
      return [c.id, { peak: summary(m.map((r) => r.peakKb / 1024)), idle: summary(m.map((r) => r.idleKb / 1024)) }];
    }),
  );
  const rows = http.contenders.map((c) => [
    c.label,
    fmt(stats[c.id].peak.median, 1),
    range(stats[c.id].peak, 1),
    fmt(stats[c.id].idle.median, 1),
    ...refs.map((r) => ratio(stats[c.id].peak.median, stats[r.id].peak.median)),
  ]);
  return [
    "## Memory under load",
    "",
    `Peak resident set (VmHWM) of each HTTP server process over one round of the load above (every tool, warm-up included), and its RSS once started, before the load. ${http.rounds} rounds. Ratios: peak divided by the reference's (lower is better).`,
    "",
    table(
      ["contender", "peak RSS MB (median)", "min–max", "RSS at start MB", ...refs.map((r) => `× ${r.label}`)],
      rows,
    ),
    "",
    chart(addChart, "memory", {
      title: "Peak RSS under load",
      unit: "MB, median; whisker min–max",
      rows: http.contenders.map((c) => ({
        label: c.label,
        ...stats[c.id].peak,
        highlight: c.id.startsWith("toolshed"),
      })),
    }),
    "",
  ].join("\n");
}

function stdioSection(stdio, addChart) {
  const refs = stdio.contenders.filter((c) => c.reference);
  const cold = Object.fromEntries(stdio.contenders.map((c) => [c.id, summary(stdio.cold[c.id])]));
  const rate = Object.fromEntries(stdio.contenders.map((c) => [c.id, summary(stdio.rate[c.id])]));
  return [
    "## stdio",
    "",
    `Cold start: from spawn to the answer to the first tools/list (initialize, initialized and tools/list written at once), ${stdio.starts} starts per contender, taking turns. Toolshed is the real \`toolshed-stdio\` bin serving the notes pack. Ratios: time divided by the reference's (lower is better).`,
    "",
    table(
      ["contender", "cold start ms (median)", "min–max", ...refs.map((r) => `× ${r.label}`)],
      stdio.contenders.map((c) => [
        c.label,
        fmt(cold[c.id].median),
        range(cold[c.id]),
        ...refs.map((r) => ratio(cold[c.id].median, cold[r.id].median)),
      ]),
    ),
    "",
    chart(addChart, "stdio-cold-start", {
      title: "stdio: spawn to first tools/list answer",
      unit: "ms, median; whisker min–max",
      rows: stdio.contenders.map((c) => ({ label: c.label, ...cold[c.id], highlight: c.id === "toolshed" })),
    }),
    "",
    `Throughput: ${fmt(stdio.calls)} \`get_note\` calls over one process, ${stdio.window} in flight, every answer checked; ${stdio.rounds} rounds. Ratios: calls/s divided by the reference's.`,
    "",
    table(
      ["contender", "calls/s (median)", "min–max", "spread", ...refs.map((r) => `× ${r.label}`)],
      stdio.contenders.map((c) => [
        c.label,
        fmt(rate[c.id].median),
        range(rate[c.id]),
        pct(rate[c.id].spread),
        ...refs.map((r) => ratio(rate[c.id].median, rate[r.id].median)),
      ]),
    ),
    "",
    chart(addChart, "stdio-throughput", {
      title: "stdio: pipelined get_note calls per second",
      unit: "calls/s, median; whisker min–max",
      rows: stdio.contenders.map((c) => ({ label: c.label, ...rate[c.id], highlight: c.id === "toolshed" })),
    }),
    "",
  ].join("\n");
}

function inProcessSection(inp, addChart) {
  const out = [
    "## In-process overhead",
    "",
    `Calls one after another through the SDK's in-memory transport and a real SDK \`Client\` (which checks structured output against the output schema for both), ${fmt(inp.calls)} calls per round after a warm-up, ${inp.rounds} rounds, order alternating. Same Zod schemas; \`get_note\` on the same SQLite file (the notes pack's store for Toolshed, the same SQL for the SDK). Logs at warn for Toolshed.`,
    "",
  ];
  const rows = [];
  const chartRows = [];
  for (const tool of inp.tools) {
    const sdk = summary(inp.rate.sdk[tool]);
    for (const c of inp.contenders) {
      const s = summary(inp.rate[c.id][tool]);
      rows.push([
        `${c.label}, \`${tool}\``,
        fmt(s.median),
        range(s),
        pct(s.spread),
        fmt(1e6 / s.median, 0),
        ratio(s.median, sdk.median),
      ]);
      chartRows.push({ label: `${c.label}, ${tool}`, ...s, highlight: c.id === "toolshed" });
    }
  }
  out.push(
    table(["contender, tool", "calls/s (median)", "min–max", "spread", "µs per call", "× McpServer"], rows),
    "",
    chart(addChart, "in-process", {
      title: "In-process calls per second",
      unit: "calls/s, median; whisker min–max",
      rows: chartRows,
    }),
    "",
  );
  return out.join("\n");
}

/** `a / b` with both figures, e.g. `0.95× (5,623 vs 5,923 req/s)`; more digits next to a threshold. */
const versus = (a, b, digits = 2) =>
  `${Number.isFinite(a / b) ? (a / b).toFixed(digits) : "n/a"}× (${fmt(a)} vs ${fmt(b)} req/s)`;

/**
 * Each target of issue 5 and of the 2026-07-28 era with the figures of this run (`met`
 * undefined: nothing to judge), and whether the 2025-era Toolshed rows regressed against
 * `previous`, the report this run replaces.
 */
export function targets({ options, http, stdio, inp, previous }) {
  const list = [];
  const med = (values) => summary(values).median;
  if (http) {
    const rps = (id, tool) => med(http.runs[id][tool].map((r) => r.rps));
    for (const tool of http.tools) {
      const ts = rps("toolshed", tool);
      list.push(
        {
          target: `HTTP \`${tool}\`: Toolshed ≥ 1.5× SDK stateless per request`,
          figure: ratio(ts, rps("sdk-stateless", tool)),
          met: ts >= 1.5 * rps("sdk-stateless", tool),
        },
        {
          target: `HTTP \`${tool}\`: Toolshed ≥ FastMCP`,
          figure: ratio(ts, rps("fastmcp", tool)),
          met: ts >= rps("fastmcp", tool),
        },
        {
          target: `HTTP \`${tool}\`: Toolshed ≥ 0.5× raw node:http`,
          // Three decimals: a ratio just under 0.5 would print as 0.50×.
          figure: versus(ts, rps("raw", tool), 3),
          met: ts >= 0.5 * rps("raw", tool),
        },
      );
    }
    // The 2026-07-28 era: the same Toolshed server with modern requests, against its own 2025
    // figure and the SDK v2 handler's modern path; then the 2025 rows against the last report.
    const comparison = legacyComparison(http, previous);
    const why = previous ? notComparable(previous, options?.quick) : "no previous report";
    for (const tool of http.tools) {
      const ts = rps("toolshed", tool);
      const modern = rps("toolshed-modern", tool);
      const sdk2 = rps("sdk2-modern", tool);
      const rows = comparison.filter((r) => r.tool === tool && r.id.startsWith("toolshed"));
      list.push(
        {
          target: `HTTP \`${tool}\`: Toolshed stateless 2026-07-28 ≥ 0.9× Toolshed stateless 2025 era`,
          figure: versus(modern, ts, 3),
          met: modern >= 0.9 * ts,
        },
        {
          target: `HTTP \`${tool}\`: Toolshed stateless 2026-07-28 ≥ 10× SDK v2 createMcpHandler 2026-07-28`,
          figure: versus(modern, sdk2),
          met: modern >= 10 * sdk2,
        },
        {
          target: `HTTP \`${tool}\`: 2025-era Toolshed rows not regressed (each ≥ ${REGRESSION_FLOOR}× its median in the previous report)`,
          figure:
            rows.length === 0
              ? `n/a (${why ?? "no matching rows"})`
              : `${rows.map((r) => `${r.label} ${versus(r.now, r.before.median, 3)}`).join("; ")}${why ? ` (n/a: ${why})` : ""}`,
          met: why || rows.length === 0 ? undefined : rows.every((r) => !r.regressed),
        },
      );
    }
  }
  if (inp) {
    for (const tool of inp.tools) {
      const ts = med(inp.rate.toolshed[tool]);
      const sdk = med(inp.rate.sdk[tool]);
      list.push({
        target: `In-process \`${tool}\`: Toolshed cost per call ≤ McpServer`,
        figure: `${fmt(1e6 / ts)} µs vs ${fmt(1e6 / sdk)} µs`,
        met: ts >= sdk,
      });
    }
    const on = med(inp.rate.toolshed.get_note ?? []);
    const off = med(inp.rate["toolshed-strict"]?.get_note ?? []);
    if (Number.isFinite(on) && Number.isFinite(off)) {
      // Run-to-run noise on this machine is about 5%: within it, the cost is not measurable.
      list.push({
        target:
          "In-process `get_note`: lax coercion adds no measurable cost to a call that needs none (within 5% of coercion off)",
        figure: `${fmt(1e6 / on)} µs on vs ${fmt(1e6 / off)} µs off (${(on / off).toFixed(3)}×)`,
        met: on >= off * 0.95,
      });
    }
  }
  if (stdio) {
    const ts = med(stdio.cold.toolshed);
    const sdk = med(stdio.cold.sdk);
    list.push({
      target: "stdio cold start: Toolshed ≤ SDK stdio",
      figure: `${ratio(ts, sdk)} (${fmt(ts)} vs ${fmt(sdk)} ms)`,
      met: ts <= sdk,
    });
  }
  return list;
}

export function renderReport({ machine, options, http, stdio, inp, search, previous, failures }, addChart) {
  const parts = [
    "# Benchmarks: Toolshed side by side",
    "",
    `Generated by \`bench/run-all.mjs\` (\`npm run bench\` at the root) on ${machine.date}${options.quick ? ", quick mode (figures only prove the harness runs)" : ""}.`,
    "Every contender serves the same two tools, `add(a, b)` and `get_note(title)` on one SQLite file, and every answer is checked; a run with a wrong answer exits non-zero. Contenders take turns within each round, so the ratios compare figures measured minutes apart on the same machine; absolute figures depend on the machine and its load.",
    "",
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memGb} GB RAM, ${machine.os}; Node ${machine.node}`,
    `- Load average (1 min) at start ${machine.loadStart}, at end ${machine.loadEnd}`,
    `- Pinning: ${machine.pinning ? "each server on core 0 (`taskset -c 0`), the load generator and clients on core 1" : "not available (no taskset or fewer than 2 cores): servers and load share the cores"}`,
    `- Contenders: Toolshed ${machine.versions.toolshed}, @modelcontextprotocol/sdk ${machine.versions.sdk}, @modelcontextprotocol/server ${machine.versions.sdk2}, fastmcp ${machine.versions.fastmcp}, autocannon ${machine.versions.autocannon}`,
    "",
    "## Targets (issue 5, 2026-07-28 era)",
    "",
    table(
      ["target", "this run", "met"],
      targets({ options, http, stdio, inp, previous }).map((t) => [
        t.target,
        t.figure,
        t.met === undefined ? "n/a" : t.met ? "yes" : "**no**",
      ]),
    ),
    "",
    "Search: p50 under 20 ms at 1M rows for every pack; see the search section.",
    "",
    "Where the time went and what was changed, with figures before and after: [benchmarks-profile.md](benchmarks-profile.md).",
    "",
  ];
  if (http) parts.push(httpSection(http, addChart, previous, options.quick), memorySection(http, addChart));
  if (stdio) parts.push(stdioSection(stdio, addChart));
  if (inp) parts.push(inProcessSection(inp, addChart));
  parts.push("## Search at scale", "");
  if (search?.report) {
    // The search benchmark's own report, its headings moved one level down.
    parts.push(
      `From \`bench/search.mjs ${search.args.join(" ")}\` in the same run (also written alone to [benchmarks-search.md](benchmarks-search.md) by \`npm run bench:search\`).`,
      "",
    );
    parts.push(search.report.replace(/^(#+) /gm, "#$1 ").replace(/^## Search benchmark\n/m, ""));
  } else {
    parts.push(
      `Not run this time (${search?.why ?? "skipped"}); see [benchmarks-search.md](benchmarks-search.md).`,
      "",
    );
  }
  parts.push(postgresSearchSection(), driversSection());
  if (failures.length > 0) parts.push("## Failures", "", ...failures.map((f) => `- ${f}`), "");
  return `${parts
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}

// The search benchmark on PostgreSQL needs a database, so run-all does not run it: its last
// report (docs/benchmarks-search-postgres.md) is carried into every full report.
function postgresSearchSection() {
  let report;
  try {
    report = readFileSync(new URL("../docs/benchmarks-search-postgres.md", import.meta.url), "utf8");
  } catch {
    return "### On PostgreSQL\n\nNot measured yet: `node bench/search.mjs --database-url postgres://…` writes docs/benchmarks-search-postgres.md.\n";
  }
  const body = report.replace(/^# .*\n+/, "").replace(/^(#+) /gm, "##$1 ");
  return `### On PostgreSQL\n\nFrom the last \`node bench/search.mjs --database-url …\` run ([benchmarks-search-postgres.md](benchmarks-search-postgres.md)); \`npm run bench\` does not rerun it.\n\n${body}`;
}

// bench/drivers.mjs needs the Node 22 and 24 binaries, so run-all does not run it: its last report
// (docs/benchmarks-drivers.md) is carried into every full report, headings one level down.
function driversSection() {
  let report;
  try {
    report = readFileSync(new URL("../docs/benchmarks-drivers.md", import.meta.url), "utf8");
  } catch {
    return "## SQLite drivers\n\nNot measured yet: `node bench/drivers.mjs` writes docs/benchmarks-drivers.md.\n";
  }
  const body = report.replace(/^# .*\n+/, "").replace(/^(#+) /gm, "#$1 ");
  return `## SQLite drivers\n\nFrom the last \`node bench/drivers.mjs\` run ([benchmarks-drivers.md](benchmarks-drivers.md)); \`npm run bench\` does not rerun it.\n\n${body}`;
}
