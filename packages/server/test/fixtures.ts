// The three seed-lesson servers written with Toolshed, plus small tools for the remaining rules.

import { NotFoundError, runBatch, TimeoutError, ToolError } from "@toolshed/errors";
import { definePack, definePrompt, defineResourceTemplate, defineTool, fullResult } from "@toolshed/schema";
import { z } from "zod";

const NOTES: Record<string, string> = { groceries: "milk, eggs", todo: "call mom" };

export const Note = z.object({ title: z.string(), body: z.string(), words: z.number().int() });

export const notesPack = definePack({
  name: "notes",
  tools: [
    defineTool({
      name: "get_note",
      description: "Return one note by its exact title.",
      input: z.object({ title: z.string().describe("Exact title of the note") }),
      output: Note,
      annotations: { readOnlyHint: true },
      handler: ({ title }) => {
        const body = NOTES[title];
        if (body === undefined) {
          throw new NotFoundError(`No note '${title}'. Known titles: ${Object.keys(NOTES).sort().join(", ")}`);
        }
        return { title, body, words: body.split(/\s+/).length };
      },
    }),
  ],
  resources: [
    defineResourceTemplate({
      uriTemplate: "note://{title}",
      name: "note",
      description: "A note's body as markdown",
      mimeType: "text/markdown",
      params: z.object({ title: z.string().min(1).describe("Note title") }),
      complete: { title: (value) => Object.keys(NOTES).filter((t) => t.startsWith(value)) },
      read: ({ title }) => {
        const body = NOTES[title];
        if (body === undefined) throw new NotFoundError(`No note '${title}'`);
        return body;
      },
    }),
  ],
  prompts: [
    definePrompt({
      name: "summarize_note",
      description: "Ask the model to summarize one note",
      args: z.object({ title: z.string().describe("Title of the note to summarize") }),
      complete: { title: (value) => Object.keys(NOTES).filter((t) => t.startsWith(value)) },
      render: ({ title }) => `Summarize the note '${title}':\n\n${NOTES[title] ?? ""}`,
    }),
  ],
});

export const ticketsPack = definePack({
  name: "tickets",
  tools: [
    defineTool({
      name: "search_tickets",
      title: "Search tickets",
      description: "Search support tickets. Use before creating a ticket to avoid duplicates.",
      input: z.object({
        query: z.string().describe("Words to match in title or body"),
        status: z.enum(["open", "closed", "any"]).default("open").describe("Ticket status to match"),
        limit: z.number().int().min(1).max(50).default(10).describe("Most tickets to return"),
      }),
      output: z.array(z.string()),
      annotations: { readOnlyHint: true },
      handler: ({ query, status, limit }) => [`#101 ${query} (${status})`].slice(0, limit),
    }),
  ],
});

export interface Account {
  id: string;
  name: string;
  tier: "startup" | "growth" | "enterprise";
  arr: number;
  archived?: boolean;
}

export class FakeCrm {
  accounts = new Map<string, Account>([
    ["acc_1", { id: "acc_1", name: "Acme", tier: "startup", arr: 12_000 }],
    ["acc_2", { id: "acc_2", name: "Globex", tier: "growth", arr: 250_000 }],
    ["acc_3", { id: "acc_3", name: "Initech", tier: "enterprise", arr: 1_200_000, archived: true }],
  ]);
  latencyMs = 0;
  async get(id: string, signal: AbortSignal): Promise<Account | undefined> {
    if (this.latencyMs > 0) {
      await new Promise((resolve, reject) => {
        const t = setTimeout(resolve, this.latencyMs);
        signal.addEventListener("abort", () => {
          clearTimeout(t);
          reject(signal.reason);
        });
      });
    }
    return this.accounts.get(id);
  }
}

const tier = z.enum(["startup", "growth", "enterprise"]);

export function crmPack(crm: FakeCrm) {
  return definePack({
    name: "crm",
    tools: [
      defineTool({
        name: "crm_search_accounts",
        description: "Search CRM accounts by name/keyword, optionally filtered by tier and ARR range.",
        input: z
          .object({
            query: z.string().min(2).max(200).describe("Name or keyword"),
            tier: tier.optional().describe("Filter by tier"),
            min_arr: z.number().min(0).default(0).describe("Lowest ARR in dollars"),
            max_arr: z.number().min(0).optional().describe("Highest ARR in dollars"),
          })
          .refine((d) => d.max_arr === undefined || d.max_arr >= d.min_arr, {
            message: "must be greater than or equal to min_arr",
            path: ["max_arr"],
          }),
        output: z.object({
          count: z.number().int(),
          accounts: z.array(z.object({ id: z.string(), name: z.string() })),
        }),
        annotations: { readOnlyHint: true },
        handler: ({ query, min_arr, max_arr }) => {
          const accounts = [...crm.accounts.values()]
            .filter((a) => a.name.toLowerCase().includes(query.toLowerCase()))
            .filter((a) => a.arr >= min_arr && (max_arr === undefined || a.arr <= max_arr))
            .map(({ id, name }) => ({ id, name }));
          return { count: accounts.length, accounts };
        },
      }),
      defineTool({
        name: "crm_get_account",
        description: "Fetch a single CRM account by ID.",
        input: z.object({ account_id: z.string().describe("Account id such as acc_1") }),
        output: z.object({ id: z.string(), name: z.string(), tier, arr: z.number() }),
        annotations: { readOnlyHint: true },
        timeoutMs: 100,
        handler: async ({ account_id }, ctx) => {
          const account = await crm.get(account_id, ctx.signal);
          if (!account) throw new NotFoundError(`No account found with id '${account_id}'`);
          const { id, name, tier: t, arr } = account;
          return { id, name, tier: t, arr };
        },
      }),
      defineTool({
        name: "crm_bulk_update_tier",
        description: "Update tier for multiple accounts. Reports per-account success/failure explicitly.",
        input: z.object({
          account_ids: z.array(z.string()).min(1).max(100).describe("Account ids to update"),
          new_tier: tier.describe("Tier to set"),
        }),
        output: z.object({
          succeeded_count: z.number().int(),
          failed_count: z.number().int(),
          succeeded: z.array(z.string()),
          failed: z.array(
            z.object({ id: z.string(), reason: z.string(), message: z.string(), retryable: z.boolean() }),
          ),
        }),
        annotations: { destructiveHint: false, idempotentHint: true },
        handler: ({ account_ids, new_tier }) =>
          runBatch(account_ids, async (id) => {
            const account = crm.accounts.get(id);
            if (!account) throw new NotFoundError(`No account '${id}'`);
            if (account.archived) throw new ToolError(`Account '${id}' is archived`, { code: "failed_precondition" });
            if (id === "acc_boom") throw new Error("db password hunter2");
            account.tier = new_tier;
            return id;
          }),
      }),
    ],
  });
}

/** Tools that exercise the remaining rules: wrapping, masking, output checks, content blocks. */
export const miscPack = definePack({
  name: "misc",
  tools: [
    defineTool({
      name: "three",
      description: "Returns 3.",
      input: z.object({}),
      output: z.number(),
      annotations: { readOnlyHint: true },
      handler: () => 3,
    }),
    defineTool({
      name: "echo_text",
      description: "Returns the text it was given.",
      input: z.object({ text: z.string().describe("Text to return") }),
      output: z.string(),
      handler: ({ text }) => text,
    }),
    defineTool({
      name: "leaky",
      description: "Fails with an unexpected exception.",
      input: z.object({}),
      handler: () => {
        throw new Error("db password hunter2 at /srv/app/secret.ts:12");
      },
    }),
    defineTool({
      name: "bad_output",
      description: "Returns a value that breaks its own output schema.",
      input: z.object({}),
      output: z.object({ count: z.number() }),
      handler: () => ({ count: "many" }) as unknown as { count: number },
    }),
    defineTool({
      name: "picture",
      description: "Returns an image and a link.",
      input: z.object({}),
      handler: () =>
        fullResult({
          content: [
            { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
            { type: "resource_link", uri: "note://groceries", name: "groceries" },
          ],
        }),
    }),
    defineTool({
      name: "upstream",
      description: "Calls an upstream service that answers with the given HTTP status.",
      input: z.object({ status: z.number().int().describe("HTTP status the upstream answers") }),
      handler: ({ status }) => {
        throw Object.assign(new Error(`upstream said ${status} secret-token-xyz`), {
          status,
          headers: { "retry-after": "3" },
        });
      },
    }),
    defineTool({
      name: "slow",
      description: "Waits longer than its timeout.",
      input: z.object({}),
      timeoutMs: 50,
      handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("late"))),
    }),
    defineTool({
      name: "backend_timeout",
      description: "Throws a timeout from its backend.",
      input: z.object({}),
      handler: () => {
        throw new TimeoutError("the CRM did not answer within 5 s");
      },
    }),
    defineTool({
      name: "count_up",
      description: "Reports progress and logs as it counts.",
      input: z.object({ to: z.number().int().min(1).max(10).describe("Where to stop") }),
      output: z.number(),
      handler: async ({ to }, ctx) => {
        for (let i = 1; i <= to; i++) {
          await ctx.progress(i, to, `step ${i}`);
          await ctx.log(i === to ? "warning" : "debug", { step: i });
        }
        return to;
      },
    }),
  ],
});
