import type { Findings } from "./definitions.js";
import { plural } from "./probes.js";
import { RULES, type RuleId } from "./rules.js";
import { cut, visible } from "./safe-text.js";
import type { AuditReport, Finding, RuleResult, Status } from "./types.js";

/** A report lists this many findings per rule at most (the summary counts them all). */
export const MAX_FINDINGS = 1000;

const RANK: Record<Status, number> = { skip: 0, pass: 1, warn: 2, fail: 3 };
const CREDIT: Record<Status, number> = { pass: 1, warn: 0.5, fail: 0, skip: 0 };

// Subjects and messages quote the server, whose names and texts can be any size.
const bounded = (f: Finding): Finding => ({
  status: f.status,
  subject: cut(f.subject, 200),
  message: cut(f.message, 1000),
});

/** Turns findings into one result per rule, in the order of RULES. */
export function ruleResults(
  findings: Findings,
  summaries: Map<RuleId, string>,
  skipped: Map<RuleId, string>,
): RuleResult[] {
  return RULES.map((rule) => {
    const list = findings.get(rule.id) ?? [];
    const skip = skipped.get(rule.id);
    const status: Status =
      list.length > 0
        ? list.reduce<Status>((worst, f) => (RANK[f.status] > RANK[worst] ? f.status : worst), "pass")
        : skip
          ? "skip"
          : "pass";
    const counts = ["fail", "warn"]
      .map((s) => [s, list.filter((f) => f.status === s).length] as const)
      .filter(([, n]) => n > 0);
    const summary =
      list.length > 0
        ? `${counts.map(([s, n]) => `${n} ${s}`).join(", ")}${list.length > MAX_FINDINGS ? ` (the first ${MAX_FINDINGS} listed)` : ""}`
        : (skip ?? summaries.get(rule.id) ?? "");
    const listed = list.slice(0, MAX_FINDINGS).map(bounded);
    return { id: rule.id, title: rule.title, contract: [...rule.contract], status, summary, findings: listed };
  });
}

/** 0–100: each rule that ran counts by its weight; a warning earns half, a failure nothing. */
export function scoreOf(rules: RuleResult[]): number {
  let earned = 0;
  let possible = 0;
  for (const result of rules) {
    if (result.status === "skip") continue;
    const weight = RULES.find((r) => r.id === result.id)?.weight ?? 1;
    earned += weight * CREDIT[result.status];
    possible += weight;
  }
  return possible === 0 ? 0 : Math.round((100 * earned) / possible);
}

const pad = (text: string, width: number) => (text.length >= width ? text : text + " ".repeat(width - text.length));

/**
 * The report as plain text: a header, one table row per rule, then the problems found, rule by rule.
 * Control and bidi characters from the server are shown escaped (`\x1b`, `\u202e`), never sent raw.
 */
export function formatReport(report: AuditReport, options: { detailsPerRule?: number } = {}): string {
  const perRule = options.detailsPerRule ?? 5;
  const lines: string[] = [];
  const server = cut([report.server.name, report.server.version].filter(Boolean).join(" ") || "(unnamed)", 200);
  lines.push(`toolshed-audit: ${report.target}`);
  lines.push(`server    ${server}`);
  lines.push(`protocol  ${cut(report.protocol.eras, 300)}`);
  const { tools, prompts, resources, probedTools, calls } = report.counts;
  lines.push(
    `checked   ${plural(tools, "tool")} (${probedTools} probed), ${plural(prompts, "prompt")}, ${plural(resources, "resource")}; ${plural(calls, "tool call")}; seed ${report.options.seed}, ${report.options.runs} runs${report.options.allowWrites ? ", --allow-writes" : ""}`,
  );
  lines.push("");
  const titleWidth = Math.max(...report.rules.map((r) => r.title.length));
  lines.push(`${pad("rule", 5)} ${pad("status", 6)} ${pad("title", titleWidth)}  evidence`);
  for (const rule of report.rules) {
    const first = rule.findings[0];
    const evidence = first ? `${first.subject}: ${first.message}` : rule.summary;
    const more = rule.findings.length > 1 ? ` (+${rule.findings.length - 1} more)` : "";
    lines.push(
      `${pad(rule.id, 5)} ${pad(rule.status.toUpperCase(), 6)} ${pad(rule.title, titleWidth)}  ${cut(evidence, 90)}${more}`,
    );
  }
  const problems = report.rules.filter((r) => r.findings.length > 0);
  if (problems.length > 0) {
    lines.push("", "findings");
    for (const rule of problems) {
      lines.push(`  ${rule.id} ${rule.title} (${rule.contract.join(", ")}): ${rule.summary}`);
      for (const f of rule.findings.slice(0, perRule))
        lines.push(`    ${f.status} ${f.subject}: ${cut(f.message, 200)}`);
      if (rule.findings.length > perRule)
        lines.push(
          `    … ${rule.findings.length - perRule} more (--json lists ${rule.findings.length < MAX_FINDINGS ? "all" : `the first ${MAX_FINDINGS}`})`,
        );
    }
  }
  lines.push("", `score ${report.score}/100`);
  return `${lines.map((line) => visible(line)).join("\n")}\n`;
}
