import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { auditServer, DEFAULTS } from "./audit.js";
import { ConnectError, MAX_SILENT } from "./connect.js";
import { formatReport } from "./report.js";
import { cut, safeJson, visible } from "./safe-text.js";
import type { AuditOptions, AuditTarget } from "./types.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

const USAGE = `toolshed-audit ${version}: audit an MCP server against the Toolshed tool contract

Usage: toolshed-audit [options] -- <command> [args…]     (a server on stdio)
       toolshed-audit [options] --url <url>               (a Streamable HTTP endpoint)

  --url URL            Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp
  --header "K: V"      HTTP header for every request (repeatable), e.g. "Authorization: Bearer x"
  --json               print one JSON report instead of text
  --min-score N        exit 1 when the score is below N, 0–100 (default 0: never)
  --seed N             seed of the generated arguments (default ${DEFAULTS.seed})
  --runs N             hostile strings per probed tool, 0–1000 (default ${DEFAULTS.runs})
  --allow-writes       also call tools not marked readOnlyHint: true (they may change data)
  --timeout MS         longest wait for one answer (default ${DEFAULTS.timeoutMs}); ${MAX_SILENT} unanswered in a row end the audit
  --max-answer BYTES   most bytes read for one answer or one whole list (default ${DEFAULTS.maxAnswerBytes}, 4 MiB)
  -h, --help           show this help
  --version            show the version

Exit codes: 0 score at or above --min-score, 1 below it, 2 usage error or no connection.
A server that does not answer tools/list within --timeout, or answers with more than --max-answer
bytes, counts as no connection.
`;

const FLAGS = {
  url: { type: "string" },
  header: { type: "string", multiple: true },
  json: { type: "boolean" },
  "min-score": { type: "string" },
  seed: { type: "string" },
  runs: { type: "string" },
  "allow-writes": { type: "boolean" },
  timeout: { type: "string" },
  "max-answer": { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

class UsageError extends Error {}

const FLAG_LIST = Object.keys(FLAGS)
  .map((f) => `--${f}`)
  .join(", ");

function integer(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max)
    throw new UsageError(`--${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function headers(list: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of list) {
    const colon = entry.indexOf(":");
    const name = colon > 0 ? entry.slice(0, colon).trim() : "";
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new UsageError(`--header must look like "Name: value", got ${JSON.stringify(entry)}`);
    out[name] = entry.slice(colon + 1).trim();
  }
  return out;
}

type Parsed =
  | { help: true; version: boolean }
  | { help: false; version: true }
  | { help: false; version: false; target: AuditTarget; options: AuditOptions; minScore: number; json: boolean };

function parse(argv: string[]): Parsed {
  const split = argv.indexOf("--");
  const own = split >= 0 ? argv.slice(0, split) : argv;
  const command = split >= 0 ? argv.slice(split + 1) : [];
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: own, options: FLAGS, strict: true, allowPositionals: false }));
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new UsageError(
      `${message?.replace(/\. To specify a positional argument.*$/, "")}; flags: ${FLAG_LIST}; the server's command goes after --`,
    );
  }
  const v = values as {
    [K in keyof typeof FLAGS]?: (typeof FLAGS)[K]["type"] extends "boolean"
      ? boolean
      : K extends "header"
        ? string[]
        : string;
  };
  if (v.help) return { help: true, version: Boolean(v.version) };
  if (v.version) return { help: false, version: true };
  const options = {
    seed: integer("seed", v.seed, DEFAULTS.seed, -(2 ** 31), 2 ** 31 - 1),
    runs: integer("runs", v.runs, DEFAULTS.runs, 0, 1000),
    timeoutMs: integer("timeout", v.timeout, DEFAULTS.timeoutMs, 100, 600_000),
    maxAnswerBytes: integer("max-answer", v["max-answer"], DEFAULTS.maxAnswerBytes, 1024, 1024 ** 3),
    allowWrites: Boolean(v["allow-writes"]),
  };
  const minScore = integer("min-score", v["min-score"], 0, 0, 100);
  let target: AuditTarget;
  if (v.url !== undefined && command.length > 0)
    throw new UsageError("pass either --url or a command after --, not both");
  if (v.url !== undefined) target = { url: v.url, headers: headers(v.header) };
  else if (command.length > 0) {
    if (v.header) throw new UsageError("--header applies to --url only");
    const [cmd, ...args] = command as [string, ...string[]];
    target = { command: cmd, args };
  } else
    throw new UsageError(
      "nothing to audit: pass --url <url>, or the server's command after --, e.g. toolshed-audit -- node server.js",
    );
  return { help: false, version: false, target, options, minScore, json: Boolean(v.json) };
}

async function main(): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parse(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`toolshed-audit: ${error.message} (--help shows usage)\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (parsed.version) {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  try {
    const report = await auditServer(parsed.target, parsed.options);
    process.stdout.write(
      parsed.json ? `${safeJson({ ...report, minScore: parsed.minScore })}\n` : formatReport(report),
    );
    if (report.score < parsed.minScore) {
      if (!parsed.json)
        process.stderr.write(`toolshed-audit: score ${report.score} is below --min-score ${parsed.minScore}\n`);
      return 1;
    }
    return 0;
  } catch (error) {
    if (error instanceof ConnectError) {
      process.stderr.write(`toolshed-audit: ${oneLine(error.message)}\n`);
      return 2;
    }
    process.stderr.write(`toolshed-audit: the audit stopped: ${oneLine(error)}\n`);
    return 2;
  }
}

/** An error as one bounded line; its text may quote the server, so controls are shown escaped. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return visible(cut(message.split("\n")[0] ?? "", 2000));
}

const finish = (code: number) => {
  process.exitCode = code;
  // The audit has stopped its server; a stray socket or grandchild must not keep it running.
  setTimeout(() => process.exit(), 5000).unref();
};

main().then(finish, (error: unknown) => {
  process.stderr.write(`toolshed-audit: ${oneLine(error)}\n`);
  finish(2);
});
