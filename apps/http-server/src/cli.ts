import { HttpConfigError } from "@toolshed/http";
import { BIN_NAME, parseHttpArgs, usageText } from "./args.js";
import { startHttpServer } from "./serve.js";
import { VERSION } from "./version.js";

// Usage errors are one line on stderr and exit 2, like toolshed-stdio; logs are JSON on stderr.
function fail(message: string, code: number): never {
  process.stderr.write(`${BIN_NAME}: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let config: ReturnType<typeof parseHttpArgs>;
  try {
    config = parseHttpArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof HttpConfigError) fail(error.message, 2);
    throw error;
  }
  if (config.command === "help") {
    process.stdout.write(usageText(VERSION));
    return;
  }
  if (config.command === "version") {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const { command: _command, ...options } = config;
  try {
    await startHttpServer({ ...options, handleSignals: true });
  } catch (error) {
    if (error instanceof HttpConfigError) fail(error.message, 2);
    fail(`could not start: ${(error as Error).message}`, 1);
  }
}

void main();
