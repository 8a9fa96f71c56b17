import { auditServer } from "@toolshed/audit";

/** Audits a stdio server the same way every time: its score, the rules it fails, and whether it passes the gate. */
export async function gate(command: string, args: string[], minScore = 80) {
  const report = await auditServer({ command, args }, { seed: 42, runs: 20 });
  const failed = report.rules.filter((rule) => rule.status === "fail").map((rule) => rule.id);
  return { score: report.score, failed, ok: report.score >= minScore };
}
