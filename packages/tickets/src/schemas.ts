import { z } from "zod";

// Output schemas shared by the tools; inputs live next to each tool.

export const TicketStatusSchema = z.enum(["open", "closed"]);
export const TicketPrioritySchema = z.enum(["low", "normal", "high", "urgent"]);

export const TicketSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  status: TicketStatusSchema,
  priority: TicketPrioritySchema,
  updated_at: z.string(),
});

export const TicketCommentSchema = z.object({
  id: z.number().int(),
  body: z.string(),
  created_at: z.string(),
});

export const TicketSchema = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  status: TicketStatusSchema,
  priority: TicketPrioritySchema,
  resolution: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const IDEMPOTENCY_KEY_MAX = 128;

export function idempotencyKeySchema(what: string) {
  return z
    .string()
    .min(1)
    .max(IDEMPOTENCY_KEY_MAX)
    .optional()
    .describe(
      `Optional unique string (such as a UUID) that makes retries safe: the same key with the same arguments returns the first result and ${what}; the same key with other arguments is a conflict`,
    );
}

/** Text that must say something: not empty, not only spaces. */
export function textSchema(max: number, description: string) {
  return (
    z
      .string()
      // Abort on empty, so "" gets one hint rather than two.
      .min(1, { abort: true })
      .max(max)
      .regex(/\S/, { error: "must contain text, not only spaces" })
      .describe(description)
  );
}

/**
 * The rule of a status change, for one ticket or many (a superRefine of their input): closing needs
 * a resolution, reopening clears it and so takes none.
 */
export function checkResolution(
  args: { status: "open" | "closed"; resolution?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (args.status === "closed" && args.resolution === undefined) {
    ctx.addIssue({ code: "custom", path: ["resolution"], message: 'is required when status is "closed"' });
  }
  if (args.status === "open" && args.resolution !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["resolution"],
      message: 'must be omitted when status is "open"; reopening clears the resolution',
    });
  }
}
