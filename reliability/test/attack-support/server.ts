import { existsSync } from "node:fs";
import { type HttpProcess, killChildren, removeTempDirs, startHttpProcess } from "@toolshed/test-support";
import { HTTP_CLI } from "../support/paths.js";

/**
 * Starts the real bin, as users run it, on a free port with its own SQLite file; the tests never
 * mount the app in-process. `script` starts a fixture instead that takes the same flags and runs
 * the built server through the same code path (parseHttpArgs + startHttpServer) with test packs.
 */
export async function startHttpServer(
  args: readonly string[],
  options: { env?: Record<string, string>; db?: string; script?: string } = {},
): Promise<HttpProcess> {
  if (!existsSync(HTTP_CLI)) throw new Error(`${HTTP_CLI} is missing; run npx tsup in apps/http-server`);
  const { script = HTTP_CLI, ...rest } = options;
  return startHttpProcess(script, args, rest);
}

/** SIGKILLs every server still running and removes the temporary folders (afterAll). */
export async function stopAll(): Promise<void> {
  await killChildren();
  removeTempDirs();
}
