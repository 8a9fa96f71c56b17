import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import type { CrmDeps } from "../deps.js";
import { accountUri } from "../resources/account.js";
import { accountSchema, tierSchema } from "../schemas.js";

export const createAccountInput = z.object({
  name: z.string().trim().min(1).max(200).describe("Company name; unique ignoring case"),
  tier: tierSchema.describe("Account tier"),
  arr: z.number().min(0).max(1_000_000_000_000).describe("Annual recurring revenue in US dollars"),
  domain: z.string().trim().min(1).max(253).optional().describe("Company web domain, such as acme.com"),
  notes: z.string().max(4000).optional().describe("Free-text notes; searchable"),
  idempotency_key: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe(
      "Any unique string (a UUID works) to make retries safe: repeating a call with the same key and arguments returns the first result and creates nothing; the same key with other arguments is a conflict",
    ),
});

export function createAccountTool({ store, call }: CrmDeps) {
  return defineTool({
    name: "crm_create_account",
    title: "Create a CRM account",
    description:
      "Create a CRM account and return it with its new id. Names are unique ignoring case: a taken name is a conflict that names the existing account. Pass idempotency_key to retry safely.",
    input: createAccountInput,
    output: accountSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async ({ idempotency_key, ...account }, ctx) => {
      const created = await call(ctx.signal, (signal) =>
        store.createAccount(account, { signal, idempotencyKey: idempotency_key }),
      );
      ctx.resourceUpdated?.(accountUri(created.id));
      ctx.resourceListChanged?.();
      return created;
    },
  });
}
