// What a refused call costs the server (issue 58.1: a refused call must never cost more than a few
// milliseconds of CPU per KB sent). One shape, in the three schema kinds a tool may be written in
// (JSON Schema, Zod, ArkType as a Standard Schema): a list whose items are one of three object
// forms, sent as a list of empty objects, which miss every form. Each size is parsed as a tool call
// parses it (`tool.parseArguments`, lax coercion on) in this process: the time is the time the
// event loop is held, so every other caller and health probe waits that long. Sizes go up to what
// fits the HTTP server's default body limit (1 MiB).
//
//   node refusals.mjs [--runs 7] [--out FILE]
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { defineTool, jsonSchema } from "@toolshed/schema";
import { type } from "arktype";
import { z } from "zod";
import { summary } from "./harness/stats.mjs";

const { values } = parseArgs({ options: { runs: { type: "string", default: "7" }, out: { type: "string" } } });
const runs = Number(values.runs);

const described = (d) => ({ description: d });
const document = {
  type: "object",
  properties: {
    items: {
      type: "array",
      description: "Changes",
      items: {
        anyOf: [
          { type: "object", properties: { a: { type: "string", ...described("A") } }, required: ["a", "b"] },
          { type: "object", properties: { c: { type: "number", ...described("C") } }, required: ["c", "d"] },
          {
            type: "object",
            properties: { e: { type: "boolean", ...described("E") } },
            required: ["e"],
            additionalProperties: false,
          },
        ],
      },
    },
  },
  required: ["items"],
};
const zodInput = z.object({
  items: z
    .array(
      z.union([
        z.object({ a: z.string().describe("A"), b: z.unknown().describe("B") }),
        z.object({ c: z.number().describe("C"), d: z.unknown().describe("D") }),
        z.strictObject({ e: z.boolean().describe("E") }),
      ]),
    )
    .describe("Changes"),
});
const described_ = (t, d) => t.describe(d);
const arkItem = type({ a: described_(type("string"), "A"), b: described_(type("unknown"), "B") })
  .or({ c: described_(type("number"), "C"), d: described_(type("unknown"), "D") })
  .or(type({ e: described_(type("boolean"), "E") }).onUndeclaredKey("reject"));
const arkInput = type({ items: arkItem.array().describe("Changes") });

const tool = (name, input) => defineTool({ name, description: "Applies changes", input, handler: () => "ok" });
const kinds = [
  ["JSON Schema (Ajv)", tool("json_schema", jsonSchema(document))],
  ["Zod", tool("zod", zodInput)],
  ["ArkType (Standard Schema)", tool("arktype", arkInput)],
];

// `{}` is 3 bytes with its comma: a 1 MiB body holds about 349,000.
const sizes = [200, 400, 6_400, 100_000, 349_000];
const rows = [];
for (const [kind, t] of kinds) {
  for (const count of sizes) {
    const args = { items: Array.from({ length: count }, () => ({})) };
    const bytes = Buffer.byteLength(JSON.stringify({ name: t.name, arguments: args }));
    const times = [];
    let answer = 0;
    // One untimed parse warms the tool's code paths; big sizes run fewer times.
    const n = count >= 100_000 ? Math.min(runs, 3) : runs;
    for (let i = 0; i <= n; i++) {
      const started = process.cpuUsage();
      const result = t.parseArguments(args);
      const used = process.cpuUsage(started);
      if (result.success) throw new Error(`${kind}: ${count} empty items were accepted`);
      answer = Buffer.byteLength(JSON.stringify(result.issues));
      if (i > 0) times.push((used.user + used.system) / 1000);
    }
    const s = summary(times);
    rows.push({ kind, count, bytes, ...s, perKb: s.median / (bytes / 1024), answer });
    process.stderr.write(`${kind} ${count} items: ${s.median.toFixed(1)} ms\n`);
  }
}

const fmt = (n, d = 1) => n.toFixed(d);
const lines = [
  "| schema kind | items | body | CPU per refused call, median (min–max) | per KB sent | answer (issues JSON) |",
  "|---|---:|---:|---:|---:|---:|",
  ...rows.map(
    (r) =>
      `| ${r.kind} | ${r.count.toLocaleString("en-US")} | ${fmt(r.bytes / 1024)} KB | ${fmt(r.median)} ms (${fmt(r.min)}–${fmt(r.max)}) | ${fmt(r.perKb, 2)} ms | ${r.answer.toLocaleString("en-US")} B |`,
  ),
];
const report = `${lines.join("\n")}\n\nNode ${process.version}, ${runs} runs a size (3 from 100,000 items), CPU time of this process (user + system).\n`;
process.stdout.write(report);
if (values.out) writeFileSync(values.out, report);
