#!/usr/bin/env node
// The recovery benchmark: every wrong call of the corpus against the same tools on Toolshed, the
// SDK 1.x McpServer, the SDK v2 McpServer and FastMCP TS. For each call: was it accepted on the
// first try with the meaning intended (the handler saw the intended values); if refused, does the
// answer name the argument and say what would work; does the generic repair, reading only the
// answer, succeed on the second try.
//
//   npm run bench -- recovery [--quick] [--doc FILE|-]   (or node bench/recovery/run.mjs ...)
//
// It writes its section of docs/benchmarks.md and the chart beside it (--quick, the CI check,
// writes nothing). It exits non-zero when a correct call fails on any server (the
// corpus or a server is broken) or Toolshed misses 95% by the second try.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { basename, dirname, extname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { openPacks } from "@toolshed/packs";
import { median } from "../harness/stats.mjs";
import { INPROCESS_CONTENDERS, runInProcessBench } from "../inprocess.mjs";
import { buildCorpus, FORMS } from "./corpus.mjs";
import { mentions, readAnswer, repair } from "./repair.mjs";
import { renderRecovery, replaceSection } from "./report.mjs";
import { RECOVERY_SERVERS } from "./servers.mjs";

const here = dirname(fileURLToPath(import.meta.url));
export const SECOND_TRY_TARGET = 0.95;

/** JSON with sorted keys, so two argument objects compare by content. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

async function send(client, call) {
  try {
    return { result: await client.callTool(call) };
  } catch (error) {
    return { error };
  }
}

/** One try: the answer, and whether the handler ran with the meaning intended. */
async function attempt(opened, call, entry) {
  const before = opened.seen.calls.length;
  const answer = readAnswer(await send(opened.client, call));
  const ran = opened.seen.calls.slice(before);
  const last = ran[ran.length - 1];
  const meant = !answer.refused && last?.tool === entry.tool && canonical(last.args) === entry.expectSeen;
  return { answer, accepted: !answer.refused, meant };
}

async function runSetup(opened, entry, failures, label) {
  for (const call of entry.setup) {
    const answer = readAnswer(await send(opened.client, call));
    if (answer.refused)
      failures.push(`${label}: setup ${call.name} for ${entry.id} failed: ${answer.text.slice(0, 200)}`);
  }
}

/** Every entry's intended call must work on every server, or the comparison says nothing. */
async function control(server, corpus, tmp, failures) {
  const opened = await server.open(join(tmp, "control"));
  try {
    for (const entry of corpus) {
      await runSetup(opened, entry, failures, server.label);
      const call = { name: entry.tool, arguments: entry.expect };
      const tried = await attempt(opened, call, entry);
      if (!tried.meant) {
        failures.push(
          `${server.label}: the correct call of ${entry.id} (${entry.tool} ${JSON.stringify(entry.expect)}) ${tried.accepted ? "ran with other values" : `was refused: ${tried.answer.text.slice(0, 200)}`}`,
        );
      }
    }
  } finally {
    await opened.close();
  }
}

async function runServer(server, corpus, tmp, failures) {
  const opened = await server.open(tmp);
  const outcomes = [];
  try {
    for (const entry of corpus) {
      await runSetup(opened, entry, failures, server.label);
      const first = await attempt(opened, entry.call, entry);
      const outcome = {
        id: entry.id,
        form: entry.form,
        first: first.meant,
        wrongMeaning: first.accepted && !first.meant,
      };
      if (!first.accepted) {
        const text = [first.answer.text, ...first.answer.clauses].join("\n");
        outcome.namesField = mentions(text, entry.field);
        const lower = text.toLowerCase();
        outcome.namesFix = entry.hints.some((h) => lower.includes(String(h).toLowerCase()));
        const next = repair(entry.call, first.answer, entry.intent);
        outcome.repaired = next !== undefined;
        if (next) outcome.second = (await attempt(opened, next, entry)).meant;
        outcome.answer = first.answer.text.slice(0, 300);
      }
      outcome.bySecond = outcome.first || outcome.second === true;
      outcomes.push(outcome);
    }
  } finally {
    await opened.close();
  }
  return outcomes;
}

function summarize(outcomes) {
  const count = (list, test) => list.filter(test).length;
  const refused = outcomes.filter((o) => !o.first && !o.wrongMeaning);
  const byForm = {};
  for (const form of FORMS) {
    const list = outcomes.filter((o) => o.form === form.id);
    byForm[form.id] = {
      n: list.length,
      first: count(list, (o) => o.first),
      bySecond: count(list, (o) => o.bySecond),
      wrongMeaning: count(list, (o) => o.wrongMeaning),
    };
  }
  return {
    n: outcomes.length,
    first: count(outcomes, (o) => o.first),
    bySecond: count(outcomes, (o) => o.bySecond),
    wrongMeaning: count(outcomes, (o) => o.wrongMeaning),
    refused: refused.length,
    helpful: count(refused, (o) => o.namesField && o.namesFix),
    byForm,
  };
}

/**
 * What lax coercion costs a call that needs none: in-process `get_note` on Toolshed with coercion
 * on and off, taking turns (the in-process benchmark's harness). Medians in calls per second.
 */
async function coercionCost(tmp, { rounds, calls, log }) {
  const db = join(tmp, "notes.db");
  const seeded = await openPacks({ db, packs: ["notes"], demo: true });
  await seeded.close();
  const contenders = INPROCESS_CONTENDERS.filter((c) => c.id === "toolshed" || c.id === "toolshed-strict");
  const inp = await runInProcessBench({ db, rounds, calls, warmup: calls, log, contenders });
  return {
    rounds,
    calls,
    on: median(inp.rate.toolshed.get_note),
    off: median(inp.rate["toolshed-strict"].get_note),
    failures: inp.failures,
  };
}

/** Runs the corpus on every server: { corpus, servers: [{id, label, summary, outcomes}], cost, failures }. */
export async function runRecovery({ log = () => {}, cost } = {}) {
  const tmp = mkdtempSync(join(os.tmpdir(), "toolshed-recovery-"));
  const failures = [];
  try {
    const definitions = await openPacks({ db: join(tmp, "definitions.db") });
    const tools = definitions.packs.flatMap((p) => p.tools);
    await definitions.close();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const corpus = buildCorpus(tools).map((entry) => ({
      ...entry,
      expectSeen: canonical(byName.get(entry.tool).input.parse(entry.expect)),
    }));
    log(`recovery: ${corpus.length} wrong calls over ${tools.length} tools, ${FORMS.length} forms`);
    const servers = [];
    for (const server of RECOVERY_SERVERS) {
      const started = Date.now();
      await control(server, corpus, tmp, failures);
      const outcomes = await runServer(server, corpus, join(tmp, server.id), failures);
      const summary = summarize(outcomes);
      const pct = (k) => `${((100 * summary[k]) / summary.n).toFixed(1)}%`;
      log(
        `recovery ${server.label.padEnd(18)} first try ${pct("first")}, by the second try ${pct("bySecond")}, accepted with another meaning ${summary.wrongMeaning} (${Date.now() - started} ms)`,
      );
      servers.push({ id: server.id, label: server.label, highlight: server.highlight, summary, outcomes });
    }
    const toolshed = servers.find((s) => s.id === "toolshed").summary;
    if (toolshed.bySecond / toolshed.n < SECOND_TRY_TARGET) {
      const missed = servers
        .find((s) => s.id === "toolshed")
        .outcomes.filter((o) => !o.bySecond)
        .map((o) => `${o.id}: ${o.answer ?? "accepted with another meaning"}`);
      failures.push(
        `recovery: Toolshed succeeds by the second try on ${toolshed.bySecond}/${toolshed.n}, under ${SECOND_TRY_TARGET * 100}%; not recovered:\n  ${missed.slice(0, 20).join("\n  ")}`,
      );
    }
    const measured = cost ? await coercionCost(tmp, { ...cost, log }) : undefined;
    if (measured) failures.push(...measured.failures);
    return { corpus, tools: tools.length, servers, cost: measured, failures };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** `npm run bench -- recovery [--quick] [--doc FILE|-]`: runs the corpus and writes its section. */
export async function recoveryMain(args) {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: "boolean", default: false },
      doc: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write("Usage: npm run bench -- recovery [--quick] [--doc FILE|-]\n");
    return 0;
  }
  const log = (line) => process.stderr.write(`${line}\n`);
  const results = await runRecovery({ log, cost: values.quick ? undefined : { rounds: 5, calls: 5000 } });
  const doc =
    values.quick || values.doc === "-" ? undefined : resolve(values.doc ?? join(here, "../../docs/benchmarks.md"));
  if (doc) {
    writeFileSync(doc, replaceSection(readFileSync(doc, "utf8"), renderRecovery(results, { chart: chartWriter(doc) })));
    log(`wrote the recovery section of ${doc}`);
  } else {
    renderRecovery(results, { chart: () => undefined });
  }
  if (results.failures.length > 0) {
    log(`\n${results.failures.length} failure(s):\n${results.failures.map((f) => `- ${f}`).join("\n")}`);
    return 1;
  }
  return 0;
}

/** Writes a chart beside `doc` (docs/benchmarks.md -> docs/benchmarks/NAME.svg); returns its link. */
export function chartWriter(doc) {
  const dir = join(dirname(doc), basename(doc, extname(doc)));
  return (name, svg) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.svg`), svg);
    return relative(dirname(doc), join(dir, `${name}.svg`));
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  recoveryMain(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`recovery: ${error.stack ?? error}\n`);
      process.exitCode = 1;
    },
  );
}
