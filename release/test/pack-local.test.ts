import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { cleanEnv, createNpmProject } from "../scripts/lib/npm-project.mjs";
import { ROOT } from "../scripts/lib/workspace.mjs";

// The README's "Try a pack before it is published": scripts/pack.mjs (npm run pack-local without
// the install and build) prints one npm install line; a user runs it in a project of their own.
const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

function packLocal(...args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, "scripts", "pack.mjs"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 300_000,
  });
}

it("pack-local prints the one npm install line that installs @toolshed/notes in an empty project", () => {
  const out = mkdtempSync(join(tmpdir(), "toolshed-pack-local-"));
  cleanup.push(out);
  const packed = packLocal("@toolshed/notes", "--out", out);
  expect(packed.status, packed.stderr).toBe(0);
  const lines = packed.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  const line = lines[0] as string;
  expect(line).toMatch(/^npm install /);
  // Only the public packages are packed.
  expect(readdirSync(out).every((file) => /^(create-)?toolshed-.*\.tgz$/.test(file))).toBe(true);
  expect(readdirSync(out).some((file) => /release|docs-check|bench/.test(file))).toBe(false);

  const project = createNpmProject("toolshed-pack-local-user-");
  cleanup.push(project);
  // The line as printed, in a shell, as a user would paste it.
  const installed = spawnSync("sh", ["-c", line], { cwd: project, env: cleanEnv(), encoding: "utf8" });
  expect(installed.status, `${installed.stdout}\n${installed.stderr}`).toBe(0);
  expect(readdirSync(join(project, "node_modules", "@toolshed")).sort()).toEqual([
    "errors",
    "notes",
    "schema",
    "storage",
  ]);

  writeFileSync(
    join(project, "list-tools.mjs"),
    [
      'import { notesPack, SqliteNotesStore } from "@toolshed/notes";',
      'const store = SqliteNotesStore.open(":memory:");',
      "console.log(JSON.stringify(notesPack({ store }).tools.map((tool) => tool.name)));",
      "await store.close();",
      "",
    ].join("\n"),
  );
  const listed = spawnSync(process.execPath, ["list-tools.mjs"], { cwd: project, encoding: "utf8", timeout: 60_000 });
  expect(listed.status, listed.stderr).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual([
    "get_note",
    "search_notes",
    "list_notes",
    "create_note",
    "update_note",
    "delete_note",
  ]);
});

it("pack-local names the public packages when asked for one that is not", () => {
  const run = packLocal("@toolshed/release");
  expect(run.status).toBe(2);
  expect(run.stdout).toBe("");
  expect(run.stderr).toContain(
    'no public package "@toolshed/release"; choose from @toolshed/audit, @toolshed/crm, @toolshed/errors',
  );
});
