import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A folder of a test's own under the OS temp dir. */
export interface TempDir {
  dir: string;
  /** The path of `name` inside the folder. */
  file(name: string): string;
  /** Removes the folder and all it holds. */
  remove(): void;
}

const made = new Set<string>();

/**
 * A fresh folder, `toolshed-<label>-XXXXXX` under the OS temp dir, so nothing is shared with tests
 * running at the same time. Removed by its `remove()`, or with every other one by `removeTempDirs()`.
 */
export function tempDir(label = "test"): TempDir {
  const dir = mkdtempSync(join(tmpdir(), `toolshed-${label}-`));
  made.add(dir);
  return {
    dir,
    file: (name) => join(dir, name),
    remove: () => {
      made.delete(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Removes every folder tempDir() made in this test file that is still there (afterAll). */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
