// Test-only pack: the tools the tasks scenarios (io.modelcontextprotocol/tasks) of
// @modelcontextprotocol/conformance 0.2.0-alpha.12 call by name.
import { ToolError } from "@toolshed/errors";
import { definePack, defineTool } from "@toolshed/schema";
import { z } from "zod";

const noArgs = z.object({});

/** Waits `ms`, or until the call is cancelled (then the wait ends with the signal's reason). */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

const confirm = (message) => ({
  message,
  requestedSchema: {
    type: "object",
    properties: { confirm: { type: "boolean", description: "Whether to go ahead" } },
    required: ["confirm"],
  },
});

export const tasksPack = definePack({
  name: "tasks_fixture",
  tools: [
    defineTool({
      name: "greet",
      description: "Greets someone by name; never a task.",
      input: z.object({ name: z.string().describe("Who to greet") }),
      handler: ({ name }) => `Hello, ${name}!`,
    }),
    defineTool({
      name: "slow_compute",
      description: "Sleeps for the given seconds, then answers; a task when the client allows one.",
      input: z.object({
        seconds: z.number().min(0).max(120).describe("How long to work, in seconds"),
        label: z.string().max(200).optional().describe("A label echoed in the result"),
      }),
      task: "optional",
      timeoutMs: 120_000,
      handler: async ({ seconds, label }, ctx) => {
        await sleep(seconds * 1000, ctx.signal);
        return `computed ${label ?? ""} after ${seconds}s`.trim();
      },
    }),
    defineTool({
      name: "failing_job",
      description: "Runs for a second as a task, then reports a tool error.",
      input: noArgs,
      task: "required",
      handler: async (_args, ctx) => {
        await sleep(1000, ctx.signal);
        throw new ToolError("the job failed, as this fixture always does", { code: "failed_precondition" });
      },
    }),
    defineTool({
      name: "protocol_error_job",
      description: "Runs as a task and crashes (an internal error).",
      input: noArgs,
      task: "optional",
      handler: async () => {
        throw new Error("the job crashed");
      },
    }),
    defineTool({
      name: "confirm_delete",
      description: "Asks the user to confirm, then deletes (nothing).",
      input: z.object({ filename: z.string().max(200).describe("The file to delete") }),
      task: "optional",
      handler: async ({ filename }, ctx) => {
        const answer = await ctx.elicitInput(confirm(`Delete ${filename}?`), { key: "confirm" });
        return answer.action === "accept" ? `deleted ${filename}` : `kept ${filename}`;
      },
    }),
    defineTool({
      name: "multi_input",
      description: "Asks two questions at once.",
      input: noArgs,
      task: "optional",
      handler: async (_args, ctx) => {
        const [a, b] = await Promise.all([
          ctx.elicitInput(confirm("First?"), { key: "first" }),
          ctx.elicitInput(confirm("Second?"), { key: "second" }),
        ]);
        return `answers: ${a.action}, ${b.action}`;
      },
    }),
    defineTool({
      name: "test_tool_with_task",
      description: "Asks for a name in the call, then works on it as a task.",
      input: noArgs,
      // The question is an input round of the call; the task starts once it is answered.
      task: { mode: "required", start: "handler" },
      handler: async (_args, ctx) => {
        const answer = await ctx.elicitInput(
          {
            message: "Your name?",
            requestedSchema: {
              type: "object",
              properties: { name: { type: "string", description: "Your name" } },
              required: ["name"],
            },
          },
          { key: "user_name" },
        );
        await ctx.startTask();
        await sleep(300, ctx.signal);
        return `Hello, ${answer.content?.name ?? "nobody"}!`;
      },
    }),
  ],
});
