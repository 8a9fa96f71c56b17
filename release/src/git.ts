import { spawnSync } from "node:child_process";

/** `git <args>` in `cwd`: trimmed stdout, or undefined when git fails (unknown ref, no parent). */
export function git(cwd: string, args: string[]): string | undefined {
  const result = spawnSync("git", args, { cwd, encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

export interface ComparisonBase {
  /** The commit to compare HEAD with; undefined when there is nothing to compare (the first commit). */
  base: string | undefined;
  head: string;
  reason: string;
}

/**
 * What a change is measured against. On a branch: the merge base with origin/main, so every commit
 * of the branch counts. On main itself (CI's fresh clone, where HEAD is the submitted commit and
 * origin/main is HEAD): the parent of HEAD, so the submitted commit is what is checked. Comparing
 * with the first commit instead would fail after every release, because `changeset version`
 * deletes the changesets while the packages stay changed since then.
 */
export function comparisonBase(cwd: string): ComparisonBase {
  const head = git(cwd, ["rev-parse", "HEAD"]);
  if (!head) throw new Error(`${cwd} is not a git checkout with a commit`);
  const originMain = git(cwd, ["rev-parse", "--verify", "--quiet", "refs/remotes/origin/main"]);
  const mergeBase = originMain ? git(cwd, ["merge-base", "HEAD", originMain]) : undefined;
  if (mergeBase && mergeBase !== head) return { base: mergeBase, head, reason: "merge base with origin/main" };
  const parent = git(cwd, ["rev-parse", "--verify", "--quiet", "HEAD^"]);
  if (parent) return { base: parent, head, reason: "parent of HEAD (HEAD is on main)" };
  if (git(cwd, ["rev-parse", "--is-shallow-repository"]) === "true") {
    // Nothing to compare with; say so rather than fail a CI that clones with --depth=1.
    process.stderr.write(
      "release checks: shallow clone without HEAD's parent; changes since the last commit are not checked\n",
    );
    return { base: undefined, head, reason: "shallow clone: HEAD's parent is not available" };
  }
  return { base: undefined, head, reason: "HEAD is the first commit" };
}

/** Files changed between two commits (committed content only, never the working tree). */
export function changedFiles(cwd: string, base: string, head: string): string[] {
  const out = git(cwd, ["diff", "--name-only", "--no-renames", base, head]);
  if (out === undefined) throw new Error(`git diff ${base} ${head} failed in ${cwd}`);
  return out ? out.split("\n") : [];
}
