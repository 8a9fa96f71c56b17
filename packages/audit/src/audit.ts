import { ConnectError, type Connection, connect } from "./connect.js";
import {
  checkDefinitions,
  type PromptDefinition,
  type ResourceDefinition,
  type ToolDefinition,
} from "./definitions.js";
import type { Outcome } from "./outcome.js";
import { plural, runProbes } from "./probes.js";
import { ruleResults, scoreOf } from "./report.js";
import type { RuleId } from "./rules.js";
import type { AuditOptions, AuditReport, AuditTarget } from "./types.js";

export const DEFAULTS = {
  seed: 42,
  runs: 20,
  allowWrites: false,
  timeoutMs: 10_000,
  maxAnswerBytes: 4 * 1024 * 1024,
} as const;

/** More tools than this are not checked: no model chooses well among them, and the audit stays bounded. */
export const MAX_LISTED = 1000;

interface Listing {
  items: unknown[];
  /** How the first page ended when it was not a result. */
  failed?: Outcome;
  /** Why the audit stopped reading pages before the last, if it did. */
  cut?: string;
}

/** Every item of a paginated list method, up to MAX_LISTED items and `maxBytes` for all pages. */
async function listAll(connection: Connection, method: string, key: string, maxBytes: number): Promise<Listing> {
  const items: unknown[] = [];
  const start = connection.received();
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const outcome = await connection.request(method, cursor ? { cursor } : {});
    if (outcome.kind !== "result") return page === 0 ? { items, failed: outcome } : { items };
    const list = outcome.result[key];
    if (Array.isArray(list)) items.push(...list);
    cursor =
      typeof outcome.result.nextCursor === "string" && outcome.result.nextCursor !== ""
        ? outcome.result.nextCursor
        : undefined;
    if (items.length > MAX_LISTED)
      return { items: items.slice(0, MAX_LISTED), cut: `${method} lists more than ${MAX_LISTED} ${key}` };
    if (cursor && connection.received() - start > maxBytes)
      return { items, cut: `${method} pages add up to more than ${maxBytes} bytes (--max-answer)` };
    if (!cursor) break;
  }
  return { items };
}

/** Why the audit cannot go on without the tool list, as one line that says what would work. */
function unlisted(connection: Connection, failed: Outcome, settings: { timeoutMs: number }): ConnectError | undefined {
  const who = connection.target;
  switch (failed.kind) {
    case "timeout":
      return new ConnectError(
        `${who} did not answer tools/list in ${settings.timeoutMs} ms; the audit stopped (a slow server needs a larger --timeout)`,
      );
    case "too_large":
      return new ConnectError(
        `${who} answered tools/list with more than ${failed.limit} bytes, so the audit read no more and stopped; a list this large costs every conversation its size in tokens (--max-answer raises the limit)`,
      );
    case "closed":
      return new ConnectError(`${who} did not answer tools/list: ${connection.lost() ?? failed.message}`);
    default:
      return undefined;
  }
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
    maxAnswerBytes: options.maxAnswerBytes ?? DEFAULTS.maxAnswerBytes,
  };
  const connection = await connect(target, settings.timeoutMs, settings.maxAnswerBytes);
  try {
    const capabilities = connection.capabilities;
    const list = (method: string, key: string) => listAll(connection, method, key, settings.maxAnswerBytes);
    const toolList = await list("tools/list", "tools");
    if (toolList.failed) {
      const stop = unlisted(connection, toolList.failed, settings);
      if (stop) throw stop;
    }
    const tools = toolList.items as ToolDefinition[];
    const prompts = (capabilities.prompts ? (await list("prompts/list", "prompts")).items : []) as PromptDefinition[];
    const resources = (
      capabilities.resources
        ? [
            ...(await list("resources/list", "resources")).items,
            ...(await list("resources/templates/list", "resourceTemplates")).items,
          ]
        : []
    ) as ResourceDefinition[];
    const definitionFindings = checkDefinitions(tools, prompts, resources);
    if (toolList.cut) {
      const d1 = definitionFindings.get("D1") ?? [];
      d1.unshift({
        status: "warn",
        subject: "server",
        message: `${toolList.cut}; the audit checked the first ${plural(tools.length, "tool")}`,
      });
      definitionFindings.set("D1", d1);
    }
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
