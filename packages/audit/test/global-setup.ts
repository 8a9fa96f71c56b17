import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function newest(dir: string): number {
  const sources = readdirSync(dir).filter((name) => !name.endsWith(".test.ts"));
  return Math.max(...sources.map((name) => statSync(join(dir, name)).mtimeMs));
}

// The CLI tests start dist/cli.js: build it when it is missing or older than src/. The servers
// under audit are built only when missing (their own tests keep them fresh).
export default function setup(): void {
  const audit = join(ROOT, "packages", "audit");
  const cli = join(audit, "dist", "cli.js");
  if (!existsSync(cli) || statSync(cli).mtimeMs < newest(join(audit, "src"))) {
    execFileSync("npx", ["--no-install", "tsup"], { cwd: audit, stdio: "inherit" });
  }
  for (const app of ["stdio-server", "http-server"]) {
    const dir = join(ROOT, "apps", app);
    if (!existsSync(join(dir, "dist", "cli.js")))
      execFileSync("npx", ["--no-install", "tsup"], { cwd: dir, stdio: "inherit" });
  }
}
