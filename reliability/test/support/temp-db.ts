import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh folder per test file, so nothing is shared with tests running at the same time. */
export function tempDir(prefix: string): { dir: string; file(name: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `toolshed-${prefix}-`));
  return {
    dir,
    file: (name) => join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
