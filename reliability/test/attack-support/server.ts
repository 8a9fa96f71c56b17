import { existsSync } from "node:fs";
import { type HttpProcess, killChildren, removeTempDirs, startHttpProcess } from "@toolshed/test-support";
import { HTTP_CLI } from "../support/paths.js";

/** Starts the real bin, as users run it, on a free port with its own SQLite file; the tests never mount the app in-process. */
export async function startHttpServer(
  args: readonly string[],
  options: { env?: Record<string, string>; db?: string } = {},
): Promise<HttpProcess> {
  if (!existsSync(HTTP_CLI)) throw new Error(`${HTTP_CLI} is missing; run npx tsup in apps/http-server`);
  return startHttpProcess(HTTP_CLI, args, options);
}

/** SIGKILLs every server still running and removes the temporary folders (afterAll). */
export async function stopAll(): Promise<void> {
  await killChildren();
  removeTempDirs();
}
