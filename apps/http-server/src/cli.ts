import { HttpConfigError } from "@toolshed/http";
import { ConfigFileError, describeConfig, type LoadedConfig, readServerConfig } from "@toolshed/packs";
import { BIN_NAME, parseHttpArgs, usageText } from "./args.js";
import { startHttpServer } from "./serve.js";
import { VERSION } from "./version.js";

// Usage errors are one line on stderr and exit 2, like toolshed-stdio; logs are JSON on stderr.
function fail(message: string, code: number): never {
  process.stderr.write(`${BIN_NAME}: ${message}\n`);
  process.exit(code);
}

/** The config file (readServerConfig); one with problems is exit 2. */
async function readConfig(argv: readonly string[]): Promise<LoadedConfig | undefined> {
  try {
    return await readServerConfig(argv);
  } catch (error) {
    if (error instanceof ConfigFileError) fail(error.message, 2);
    throw error;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const loaded = await readConfig(argv);
  let config: ReturnType<typeof parseHttpArgs>;
  try {
    // A flag wins over its variable, and both over the file's setting.
    config = parseHttpArgs(argv, { ...loaded?.env, ...process.env });
  } catch (error) {
    if (error instanceof HttpConfigError) fail(error.message, 2);
    throw error;
  }
  if (!config.packsGiven && loaded?.packs !== undefined) config.packs = loaded.packs;
  if (config.command === "check-config") {
    process.stdout.write(await describeConfig(loaded, config.packs));
    return;
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
