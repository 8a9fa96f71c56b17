import { type Connection, connect } from "./connect.js";
import {
  checkDefinitions,
  type PromptDefinition,
  type ResourceDefinition,
  type ToolDefinition,
} from "./definitions.js";
import { plural, runProbes } from "./probes.js";
import { ruleResults, scoreOf } from "./report.js";
import type { RuleId } from "./rules.js";
import type { AuditOptions, AuditReport, AuditTarget } from "./types.js";

export const DEFAULTS = { seed: 42, runs: 20, allowWrites: false, timeoutMs: 10_000 } as const;

/** Every item of a paginated list method; undefined when the server does not answer it. */
async function listAll(connection: Connection, method: string, key: string): Promise<unknown[] | undefined> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const outcome = await connection.request(method, cursor ? { cursor } : {});
    if (outcome.kind !== "result") return page === 0 ? undefined : items;
    const list = outcome.result[key];
    if (Array.isArray(list)) items.push(...list);
    cursor =
      typeof outcome.result.nextCursor === "string" && outcome.result.nextCursor !== ""
        ? outcome.result.nextCursor
        : undefined;
    if (!cursor) break;
  }
  return items;
}

/**
 * Connects to an MCP server (a stdio command or a Streamable HTTP URL), checks its published
 * definitions, probes the tools that are safe to call, and returns the report. Rejects with
 * `ConnectError` when it cannot connect.
 */
export async function auditServer(target: AuditTarget, options: AuditOptions = {}): Promise<AuditReport> {
  const settings = {
    seed: options.seed ?? DEFAULTS.seed,
    runs: options.runs ?? DEFAULTS.runs,
    allowWrites: options.allowWrites ?? DEFAULTS.allowWrites,
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
  };
  const connection = await connect(target, settings.timeoutMs);
  try {
    const capabilities = connection.capabilities;
    const tools = ((await listAll(connection, "tools/list", "tools")) ?? []) as ToolDefinition[];
    const prompts = (
      capabilities.prompts ? ((await listAll(connection, "prompts/list", "prompts")) ?? []) : []
    ) as PromptDefinition[];
    const resources = (
      capabilities.resources
        ? [
            ...((await listAll(connection, "resources/list", "resources")) ?? []),
            ...((await listAll(connection, "resources/templates/list", "resourceTemplates")) ?? []),
          ]
        : []
    ) as ResourceDefinition[];
    const definitionFindings = checkDefinitions(tools, prompts, resources);
    const probes = await runProbes(connection, tools, settings);
    const findings = new Map([...definitionFindings, ...probes.findings]);
    const n = tools.length;
    const summaries = new Map<RuleId, string>([
      ["D1", plural(n, "name")],
      ["D2", plural(n, "description")],
      ["D3", plural(n, "input schema")],
      ["D4", plural(n, "input schema")],
      ["D5", plural(n, "input schema")],
      ["D6", plural(n, "input schema")],
      ["D7", `${plural(n, "tool")}: input and output schemas`],
      ["D8", plural(n, "tool")],
      ["D9", plural(n, "tool")],
      ["D10", `${plural(prompts.length, "prompt")}, ${plural(resources.length, "resource")}`],
      ...probes.checked,
    ]);
    const skipped = new Map<RuleId, string>();
    if (n === 0)
      for (const id of ["D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8", "D9"] as const) skipped.set(id, "no tools");
    if (prompts.length + resources.length === 0) skipped.set("D10", "no prompts or resources");
    for (const [id, reason] of probes.skipped) skipped.set(id, reason);
    const rules = ruleResults(findings, summaries, skipped);
    return {
      target: connection.target,
      server: connection.server,
      protocol: connection.protocol,
      counts: {
        tools: n,
        resources: resources.length,
        prompts: prompts.length,
        probedTools: probes.probed.length,
        calls: probes.calls,
      },
      options: { seed: settings.seed, runs: settings.runs, allowWrites: settings.allowWrites },
      rules,
      score: scoreOf(rules),
    };
  } finally {
    await connection.close();
  }
}
