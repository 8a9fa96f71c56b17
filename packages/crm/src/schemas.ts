import { z } from "zod";
import { TIERS } from "./store.js";

export const tierSchema = z.enum(TIERS);

/** How tools take an account id; bounded so a pasted document is rejected up front. */
export const accountIdSchema = z.string().min(1).max(100);

export const accountSchema = z.object({
  id: z.string().describe("Account id, such as acc_1001"),
  name: z.string(),
  tier: tierSchema,
  arr: z.number().describe("Annual recurring revenue in US dollars"),
  domain: z.string().nullable(),
  notes: z.string().nullable(),
  archived: z.boolean().describe("Archived accounts are read-only"),
  created_at: z.string().describe("ISO 8601"),
  updated_at: z.string().describe("ISO 8601"),
});
