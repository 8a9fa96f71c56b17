#!/usr/bin/env node
import { ConfigFileError, describeConfig, type LoadedConfig, readServerConfig } from "@toolshed/packs";
import { BIN_NAME, parseStdioArgs, StdioUsageError, usageText } from "./args.js";
import { type RunningStdioServer, runStdioServer } from "./run.js";
import { packageVersion } from "./version.js";

// Exit codes: 0 stopped cleanly, 1 unexpected failure, 2 a flag, variable, path or database that
// cannot work (the same as toolshed-http; docs/servers.md lists them).

function fail(code: number, message: string): never {
  // One line, no stack: a desktop client shows stderr to the user as is.
  process.stderr.write(`${BIN_NAME}: ${message.replace(/\s*\n\s*/g, " ")}\n`);
  process.exit(code);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function exit(code: number): Promise<never> {
  // Flush what is queued on stdout before leaving, so no answer is cut off.
  await new Promise<void>((resolve) => {
    if (process.stdout.destroyed || !process.stdout.writable) return resolve();
    process.stdout.once("error", () => resolve()); // the reader is gone: nothing left to flush
    process.stdout.write("", () => resolve());
  });
  process.exit(code);
}

/** The config file (readServerConfig); one with problems is exit 2. */
async function readConfig(argv: readonly string[]): Promise<LoadedConfig | undefined> {
  try {
    return await readServerConfig(argv);
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    // --check-config prints the problems one per line; serving keeps stderr to one line.
    if (argv.includes("--check-config")) {
      process.stderr.write(`${BIN_NAME}: ${error.message}\n`);
      process.exit(2);
    }
    fail(2, error.message);
  }
}

async function main(): Promise<never> {
  const argv = process.argv.slice(2);
  const loaded = await readConfig(argv);
  let config: ReturnType<typeof parseStdioArgs>;
  try {
    // A flag wins over its variable, and both over the file's setting.
    config = parseStdioArgs(argv, { ...loaded?.env, ...process.env });
  } catch (error) {
    if (error instanceof StdioUsageError) fail(2, error.message);
    throw error;
  }
  if (!config.packsGiven && loaded?.packs !== undefined) config.packs = loaded.packs;
  if (config.command === "check-config") {
    process.stdout.write(await describeConfig(loaded, config.packs));
    return exit(0);
  }
  if (config.command === "help") {
    process.stdout.write(usageText(packageVersion()));
    return exit(0);
  }
  if (config.command === "version") {
    process.stdout.write(`${packageVersion()}\n`);
    return exit(0);
  }

  let running: RunningStdioServer;
  try {
    running = await runStdioServer(config);
  } catch (error) {
    if (error instanceof StdioUsageError) fail(2, error.message);
    fail(1, `could not start: ${describe(error)}`);
  }
  const crash = (error: unknown) => {
    running.server.logger.error({ err: error }, "unexpected failure; stopping");
    void running.stop("unexpected failure").finally(() => exit(1));
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
  await running.stopped;
  return exit(0);
}

main().catch((error: unknown) => fail(1, describe(error)));
