import { main } from "./main.js";

try {
  process.exitCode = await main(process.argv.slice(2), {
    cwd: process.cwd(),
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
} catch (error) {
  // main answers every failure itself; this is the last guard against a stack trace.
  process.stderr.write(`create-toolshed-pack: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
