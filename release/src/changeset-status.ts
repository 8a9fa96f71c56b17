import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workspacePackages } from "../scripts/lib/workspace.mjs";
import { changedPublishedPackages } from "./changed-packages.js";
import { changedFiles, comparisonBase, git } from "./git.js";

export interface ChangesetCheck {
  ok: boolean;
  report: string;
}

interface ReleasePlan {
  changesets: Array<{ id: string; releases: Array<{ name: string; type: string }> }>;
}

/**
 * Runs `changeset status --since=<base>` on the committed HEAD of `repo` and checks that every
 * published package whose shipped files changed since the base is named by a changeset added or
 * edited since then. It works on a fresh clone because changesets diffs the base against the
 * working tree: uncommitted edits in a shared checkout must not decide the result.
 */
export function checkChangesets(repo: string, changesetBin: string): ChangesetCheck {
  const { base, head, reason } = comparisonBase(repo);
  if (!base) return { ok: true, report: `nothing to compare: ${reason}` };
  const clone = mkdtempSync(join(tmpdir(), "toolshed-changeset-status-"));
  try {
    if (git(tmpdir(), ["clone", "--quiet", repo, clone]) === undefined) throw new Error(`git clone ${repo} failed`);
    if (git(clone, ["checkout", "--quiet", "--detach", head]) === undefined) throw new Error(`checkout ${head} failed`);
    const published = workspacePackagesIn(clone);
    const changed = changedPublishedPackages(clone, changedFiles(clone, base, head), published);
    const since = `since ${base.slice(0, 12)} (${reason})`;
    if (changed.size === 0) return { ok: true, report: `no published package changed ${since}` };

    const planFile = "changeset-status.json";
    const status = spawnSync(process.execPath, [changesetBin, "status", `--since=${base}`, `--output=${planFile}`], {
      cwd: clone,
      encoding: "utf8",
    });
    const named = new Set<string>();
    if (status.status === 0 && existsSync(join(clone, planFile))) {
      const plan = JSON.parse(readFileSync(join(clone, planFile), "utf8")) as ReleasePlan;
      for (const changeset of plan.changesets) for (const release of changeset.releases) named.add(release.name);
    }
    const missing = [...changed].filter(([name]) => !named.has(name));
    if (missing.length === 0) {
      return { ok: true, report: `${[...changed.keys()].join(", ")} changed ${since}; each has a changeset` };
    }
    const lines = [
      `Published packages changed ${since} without a changeset that names them:`,
      ...missing.map(([name, files]) => `  ${name}: ${files.slice(0, 5).join(", ")}${files.length > 5 ? ", …" : ""}`),
      "Add one with: npx -y pnpm@12.4.2 changeset (a breaking change needs major).",
    ];
    if (status.status !== 0) lines.push(`changeset status: ${(status.stdout + status.stderr).trim()}`);
    return { ok: false, report: lines.join("\n") };
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
}

/** Published packages of the checkout at `dir` (packages/* and apps/*, not private). */
function workspacePackagesIn(dir: string): Array<{ name: string; dir: string }> {
  return workspacePackages(["packages", "apps"], dir).filter((p) => !p.manifest.private);
}
