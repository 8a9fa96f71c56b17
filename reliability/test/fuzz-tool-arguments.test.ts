import { type ArgsCase, type ArgumentsSchema, argsCases, leaksIn, toolResultProblems } from "@toolshed/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  postgresDatabase,
  postgresReachable,
  type ServerDatabase,
  type Snapshots,
  sqliteDatabase,
} from "./support/databases.js";
import { announceFuzz, FUZZ_SEED, fuzzRuns, fuzzTimeoutMs } from "./support/fuzz-settings.js";
import { type FuzzTarget, idKey, KNOWN_VALUES, startHttpTarget, startStdioTarget } from "./support/targets.js";

const CHANGE_NOTIFICATIONS = new Set(["notifications/resources/list_changed", "notifications/resources/updated"]);

function isChangeNotification(message: unknown): boolean {
  const m = message as { id?: unknown; method?: unknown };
  return m.id === undefined && typeof m.method === "string" && CHANGE_NOTIFICATIONS.has(m.method);
}

interface PublishedTool {
  name: string;
  inputSchema: ArgumentsSchema;
}

const TOTAL_TOOLS = 16;

const starters = { stdio: startStdioTarget, http: startHttpTarget };
const postgres = await postgresReachable();

// Every transport and era on SQLite; on PostgreSQL the store is what differs, so both transports
// and both eras once each (stdio with 2025, HTTP with 2026-07-28), at half the cases.
const TARGETS = [
  { db: "SQLite", transport: "stdio", era: "legacy", share: 0.15 },
  { db: "SQLite", transport: "http", era: "legacy", share: 0.15 },
  { db: "SQLite", transport: "stdio", era: "modern", share: 0.15 },
  { db: "SQLite", transport: "http", era: "modern", share: 0.15 },
  { db: "PostgreSQL", transport: "stdio", era: "legacy", share: 0.075 },
  { db: "PostgreSQL", transport: "http", era: "modern", share: 0.075 },
] as const;

describe.each(TARGETS)(
  "fuzzing the arguments of every tool over $transport ($era era) on $db",
  ({ db, transport, era, share }) => {
    const RUNS = fuzzRuns(share);
    const skip = db === "PostgreSQL" && !postgres;
    let database: ServerDatabase;
    let target: FuzzTarget;
    let snapshots: Snapshots;
    let tools: PublishedTool[];
    let nextId = 0;

    beforeAll(async () => {
      if (skip) return;
      database = db === "SQLite" ? sqliteDatabase(`fuzz-args-${transport}-${era}`) : await postgresDatabase();
      target = await starters[transport](database.args, era);
      snapshots = await database.snapshots();
      const listed = await target.send(JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" }), [
        idKey("list"),
      ]);
      tools = (listed.answers[0] as { result: { tools: PublishedTool[] } }).result.tools;
    });

    afterAll(async () => {
      await snapshots?.close();
      await target?.stop();
      await database?.remove();
    });

    /** Sends one tools/call; returns every problem with its answer. */
    async function call(tool: string, args: unknown, breaks: boolean | "not-an-object"): Promise<string[]> {
      const id = ++nextId;
      const params = args === undefined ? { name: tool } : { name: tool, arguments: args };
      const text = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });
      const before = await snapshots.take();
      const exchange = await target.send(text, [idKey(id)]);
      const problems = [...exchange.transportProblems, ...leaksIn(exchange.raw, text)];
      // Change notifications (a created note changes the resource list) may come along; they are not answers.
      const answers = exchange.answers.filter((a) => !isChangeNotification(a));
      const mine = answers.filter((a) => (a as { id?: unknown }).id === id);
      if (mine.length !== 1 || answers.length !== 1) {
        problems.push(
          `expected exactly one answer with id ${id}, got ${JSON.stringify(exchange.answers).slice(0, 500)}`,
        );
        return problems;
      }
      const answer = mine[0] as { error?: { code: number }; result?: { isError?: boolean } };
      if (breaks === "not-an-object") {
        if (answer.error?.code !== -32602)
          problems.push(`arguments that are not an object answered ${JSON.stringify(answer).slice(0, 300)}`);
      } else {
        problems.push(...toolResultProblems(answer, { tool, invalid: breaks }));
        const resultType = (answer.result as { resultType?: unknown } | undefined)?.resultType;
        if (answer.result && era === "modern" && resultType !== "complete") {
          problems.push(`a 2026-07-28 result without resultType "complete" (got ${JSON.stringify(resultType)})`);
        }
        if (answer.result && era === "legacy" && resultType !== undefined)
          problems.push("a 2025 result with resultType");
      }
      const rejected = answer.error !== undefined || answer.result?.isError === true;
      if (rejected && (await snapshots.take()) !== before) problems.push("a rejected call changed the database");
      if (!target.alive()) problems.push("the server process exited");
      return problems;
    }

    it.skipIf(skip)(
      `answers ${RUNS} generated and mutated calls with well-formed results or C6/C8 errors, and rejected calls change nothing`,
      async () => {
        expect(tools.map((t) => t.name)).toHaveLength(TOTAL_TOOLS);
        announceFuzz(`tool arguments over ${transport} (${era} era) on ${db}`, RUNS);
        type Generated = { tool: string; c: ArgsCase } | { tool: string; notObject: unknown };
        const notObject = fc.oneof(
          fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
          fc.string(),
          // NaN and ±Infinity serialize as null, which counts as no arguments (checked below).
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.boolean(),
        );
        const toolCase = fc.constantFrom(...tools).chain((tool) =>
          fc.oneof(
            {
              weight: 12,
              arbitrary: argsCases(tool.inputSchema, KNOWN_VALUES).map((c): Generated => ({ tool: tool.name, c })),
            },
            { weight: 1, arbitrary: notObject.map((args): Generated => ({ tool: tool.name, notObject: args })) },
          ),
        );
        const counts = { valid: 0, breaking: 0, notObject: 0 };
        await fc.assert(
          fc.asyncProperty(toolCase, async (generated) => {
            let problems: string[];
            let label: string;
            if ("notObject" in generated) {
              counts.notObject++;
              label = "arguments not an object";
              problems = await call(generated.tool, generated.notObject, "not-an-object");
            } else {
              counts[generated.c.breaks ? "breaking" : "valid"]++;
              label = generated.c.label;
              problems = await call(generated.tool, generated.c.args, generated.c.breaks);
            }
            if (problems.length > 0) throw new Error(`${generated.tool} (${label}):\n- ${problems.join("\n- ")}`);
          }),
          { numRuns: RUNS, seed: FUZZ_SEED, endOnFailure: true },
        );
        process.stderr.write(
          `[fuzz] tool arguments over ${transport} (${era} era) on ${db}: ${counts.valid} within the schema, ${counts.breaking} breaking it, ${counts.notObject} not an object\n`,
        );
        expect(target.alive()).toBe(true);
        // Missing arguments, and null ones, count as no arguments: a tool result, never a JSON-RPC error.
        for (const tool of tools) {
          expect(await call(tool.name, undefined, false)).toEqual([]);
          expect(await call(tool.name, null, false)).toEqual([]);
        }
      },
      fuzzTimeoutMs(RUNS),
    );
  },
);
