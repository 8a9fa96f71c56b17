// The real toolshed-http, started through the same code path as dist/cli.js (parseHttpArgs +
// startHttpServer with signals), plus a pack whose tool and prompt ask the user (2026-07-28 multi
// round-trip requests) and count every run of their handler, so a test sees whether one ran.
import { parseHttpArgs, startHttpServer } from "@toolshed/http-server";
import { definePack, definePrompt, defineTool } from "@toolshed/schema";
import { z } from "zod";

/** Runs of each handler since start, by name (`prompt:` for the prompt). */
const runs = {};
const count = (name) => {
  runs[name] = (runs[name] ?? 0) + 1;
  return runs[name];
};

const question = (action) => ({
  message: `Really ${action}?`,
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
});

/** Two tools with the same arguments and the same question: a state differs only in the tool it names. */
const confirmTool = (name) =>
  defineTool({
    name,
    description: "Counts the run, asks the user to confirm (elicitation), then says what they answered.",
    input: z.object({
      action: z.string().describe("What to confirm"),
      pad: z.string().optional().describe("Ignored; makes the request (and anything kept of it) larger"),
    }),
    output: z.object({ action: z.string(), confirmed: z.boolean(), run: z.number() }),
    annotations: { readOnlyHint: true },
    handler: async ({ action }, ctx) => {
      const run = count(name);
      const answer = await ctx.elicitInput(question(action), { key: "confirm" });
      return { action, confirmed: answer.action === "accept" && answer.content?.ok === true, run };
    },
  });

/** Same name and arguments as the tool: a state differs only in the method. */
const confirmPrompt = definePrompt({
  name: "mrtr_confirm",
  description: "Counts the run, asks the user to confirm, then renders what they answered.",
  args: z.object({ action: z.string().describe("What to confirm") }),
  render: async ({ action }, ctx) => {
    const run = count("prompt:mrtr_confirm");
    const answer = await ctx.elicitInput?.(question(action), { key: "confirm" });
    return `${action} confirmed=${answer?.action === "accept"} run=${run}`;
  },
});

const runsTool = defineTool({
  name: "mrtr_runs",
  description: "How many times each asking handler has run since the server started.",
  input: z.object({}),
  output: z.object({ runs: z.record(z.string(), z.number()) }),
  annotations: { readOnlyHint: true },
  handler: async () => ({ runs: { ...runs } }),
});

const config = parseHttpArgs(process.argv.slice(2), process.env);
const { command: _command, ...options } = config;
await startHttpServer({
  ...options,
  handleSignals: true,
  extraPacks: [
    definePack({
      name: "mrtr",
      tools: [confirmTool("mrtr_confirm"), confirmTool("mrtr_confirm_b"), runsTool],
      prompts: [confirmPrompt],
    }),
  ],
});
