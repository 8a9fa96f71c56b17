import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** The monorepo root (node-lines/ sits directly under it). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The Node lines tested besides the machine's own, each from its holder package (node-lines/node<major>). */
export const LINES = [24, 26] as const;
export type Line = (typeof LINES)[number];

export const CI = process.env.CI === "true" || process.env.CI === "1";

/**
 * The `node` binary of a line, from the npm `node` package its holder installs (one package down,
 * so that no `node` lands in a .bin folder of the workspace), or why there is none.
 */
export function nodeLine(major: Line): { bin: string; version: string } | { problem: string } {
  const holderName = `@toolshed/node-lines-node${major}`;
  let bin: string;
  try {
    const here = createRequire(join(ROOT, "node-lines", "package.json"));
    const holder = createRequire(here.resolve(`${holderName}/package.json`));
    const manifest = holder.resolve("node/package.json");
    bin = join(dirname(manifest), JSON.parse(readFileSync(manifest, "utf8")).bin.node);
  } catch (error) {
    return {
      problem: `${holderName} or its node package is not installed (${(error as Error).message.split("\n")[0]})`,
    };
  }
  const run = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 30_000 });
  const version = run.stdout?.trim() ?? "";
  if (run.status !== 0 || !version.startsWith(`v${major}.`)) {
    return {
      problem: `${bin} is not a Node ${major} binary (exit ${run.status}, printed '${version}'${run.error ? `, ${run.error.message}` : ""}); the node package's install script may not have run`,
    };
  }
  return { bin, version };
}

export type CallResult = CallToolResult;
export type McpClient = Client;
export interface StdioTransport {
  readonly stderr: NodeJS.ReadableStream | null;
  readonly pid: number | null;
}

export const sdk = { Client, StdioClientTransport, StreamableHTTPClientTransport };
