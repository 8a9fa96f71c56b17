import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PNPM } from "../scripts/lib/pack.mjs";
import { publishedPackages, ROOT, readJson, workspacePackages } from "../scripts/lib/workspace.mjs";
import { changedPublishedPackages, shipsToUsers } from "../src/changed-packages.js";
import { checkChangesets } from "../src/changeset-status.js";

const CHANGESET_BIN = join(ROOT, "node_modules", "@changesets", "cli", "bin.js");
const published = publishedPackages();

/** Changesets' package globs: `*` matches within one path segment of the name. */
function matches(glob: string, name: string): boolean {
  const pattern = glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*");
  return new RegExp(`^${pattern}$`).test(name);
}

describe("one version for every published package", () => {
  it("every published package.json has the same version", () => {
    const versions = new Map(published.map((p) => [p.name, p.version]));
    expect(published.length).toBeGreaterThanOrEqual(10);
    expect(new Set(versions.values()), JSON.stringify(Object.fromEntries(versions), null, 2)).toHaveLength(1);
  });

  it(".changeset/config.json has one fixed group that holds every published package", () => {
    const config = readJson(join(ROOT, ".changeset", "config.json")) as { fixed: string[][]; ignore: string[] };
    const groups = config.fixed.map((globs) => published.filter((p) => globs.some((g) => matches(g, p.name))));
    const holding = groups.filter((g) => g.length > 0);
    expect(holding, "published packages are spread over several fixed groups").toHaveLength(1);
    expect(holding[0]?.map((p) => p.name)).toEqual(published.map((p) => p.name));
    expect(config.ignore.filter((name) => published.some((p) => p.name === name))).toEqual([]);
  });
});

describe("changeset status", () => {
  const temp: string[] = [];
  afterAll(() => {
    for (const dir of temp) rmSync(dir, { recursive: true, force: true });
  });

  it("every published package changed by the commits under test is named by a changeset", () => {
    const check = checkChangesets(ROOT, CHANGESET_BIN);
    process.stderr.write(`changeset status: ${check.report}\n`);
    if (!check.ok) throw new Error(check.report);
  });

  it("counts only files that reach npm users", () => {
    expect(shipsToUsers("src/tools/search.ts")).toBe(true);
    expect(shipsToUsers("package.json")).toBe(true);
    expect(shipsToUsers("README.md")).toBe(true);
    expect(shipsToUsers("src/tools/search.test.ts")).toBe(false);
    expect(shipsToUsers("test/e2e.test.ts")).toBe(false);
    expect(shipsToUsers("contract.snapshot.json")).toBe(false);
    const changed = changedPublishedPackages(
      "/repo",
      ["packages/tickets/src/a.ts", "packages/tickets/src/a.test.ts", "packages/notes/test/x.ts", "docs/a.md"],
      [
        { name: "@toolshed/tickets", dir: "/repo/packages/tickets" },
        { name: "@toolshed/notes", dir: "/repo/packages/notes" },
      ],
    );
    expect([...changed]).toEqual([["@toolshed/tickets", ["packages/tickets/src/a.ts"]]]);
  });

  it("fails a commit that changes a published package without a changeset, and passes it with one", () => {
    const repo = mkdtempSync(join(tmpdir(), "toolshed-changeset-repo-"));
    temp.push(repo);
    const run = (...args: string[]) => {
      const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
        cwd: repo,
        encoding: "utf8",
      });
      if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    };
    const write = (path: string, text: string) => {
      mkdirSync(join(repo, path, ".."), { recursive: true });
      writeFileSync(join(repo, path), text);
    };
    write("package.json", JSON.stringify({ name: "root", private: true, version: "0.0.0" }));
    write("pnpm-workspace.yaml", "packages:\n  - packages/*\n");
    const config = JSON.parse(readFileSync(join(ROOT, ".changeset", "config.json"), "utf8"));
    write(".changeset/config.json", JSON.stringify({ ...config, fixed: [["@toolshed/a"]] }));
    write("packages/a/package.json", JSON.stringify({ name: "@toolshed/a", version: "0.1.0" }));
    write("packages/a/src/index.ts", "export const a = 1;\n");
    run("init", "--quiet", "--initial-branch=main");
    run("add", ".");
    run("commit", "--quiet", "-m", "first");

    write("packages/a/src/index.ts", "export const a = 2;\n");
    run("commit", "--quiet", "-am", "change a without a changeset");
    const without = checkChangesets(repo, CHANGESET_BIN);
    expect(without.ok).toBe(false);
    expect(without.report).toContain("@toolshed/a: packages/a/src/index.ts");

    write(".changeset/a-change.md", '---\n"@toolshed/a": patch\n---\n\nA is 2.\n');
    run("add", ".");
    run("commit", "--quiet", "--amend", "-m", "change a with a changeset");
    expect(checkChangesets(repo, CHANGESET_BIN)).toMatchObject({ ok: true });

    write("packages/a/src/index.test.ts", "// a test\n");
    run("add", ".");
    run("commit", "--quiet", "-m", "tests only");
    expect(checkChangesets(repo, CHANGESET_BIN).report).toContain("no published package changed");
  });
});

describe("publishing", () => {
  it("a dry-run publish of every package succeeds", () => {
    const result = spawnSync("npx", [...PNPM, "publish", "-r", "--dry-run", "--no-git-checks"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 300_000,
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    // Every published package appears in the dry run, and no private one does.
    const output = result.stdout + result.stderr;
    for (const pkg of published) expect(output).toContain(`${pkg.name}@${pkg.version}`);
    for (const pkg of workspacePackages(["packages", "apps", "bench", "conformance", "reliability", "release"]))
      if (pkg.manifest.private) expect(output).not.toContain(`${pkg.name}@`);
  });
});
