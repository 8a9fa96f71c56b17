import { closestMatches, NotFoundError } from "@toolshed/errors";
import { describeValue } from "@toolshed/schema/internal";
import { z } from "zod";

/** Ticket ids are `T-` and a number without leading zeros, such as `T-1001`. */
export const TICKET_ID_PATTERN = /^T-[1-9][0-9]{0,8}$/;
const TICKET_ID_MAX_LENGTH = 11;

export function formatTicketId(num: number): string {
  return `T-${num}`;
}

/** The number of a ticket id, or undefined when the text is not one. */
export function parseTicketId(id: string): number | undefined {
  return TICKET_ID_PATTERN.test(id) ? Number(id.slice(2)) : undefined;
}

/** A Zod string for a ticket id whose failure says what an id looks like (C6). */
export function ticketIdSchema(description: string) {
  const error = (issue: { input?: unknown }) =>
    `must be a ticket id such as "T-1001" (got ${describeValue(issue.input)})`;
  return (
    z
      .string()
      // The longest id the pattern allows, published so that clients see the bound; one message either way.
      .max(TICKET_ID_MAX_LENGTH, { error, abort: true })
      .regex(TICKET_ID_PATTERN, { error })
      .describe(description)
  );
}

/**
 * Ticket numbers one typo away from `num` (a digit dropped, added, changed or two swapped), so
 * an unknown id can be matched against a bounded set of existing ids by index look-up.
 */
export function ticketNumberTypos(num: number): number[] {
  const digits = String(num);
  const variants = new Set<string>();
  for (let i = 0; i < digits.length; i++) {
    variants.add(digits.slice(0, i) + digits.slice(i + 1));
    if (i + 1 < digits.length) variants.add(digits.slice(0, i) + digits[i + 1] + digits[i] + digits.slice(i + 2));
    for (let d = 0; d <= 9; d++) variants.add(digits.slice(0, i) + d + digits.slice(i + 1));
  }
  for (let i = 0; i <= digits.length; i++) {
    for (let d = 0; d <= 9; d++) variants.add(digits.slice(0, i) + d + digits.slice(i));
  }
  variants.delete(digits);
  return [...variants].filter((v) => /^[1-9][0-9]{0,8}$/.test(v)).map(Number);
}

/**
 * The not-found error every store raises for an unknown id: it names the closest existing ids
 * among `candidates` (a bounded set the store looked up), or says there are no tickets.
 */
export function ticketNotFoundError(id: string, candidates: readonly string[]): NotFoundError {
  if (candidates.length === 0) return new NotFoundError(`No ticket '${id}'. There are no tickets yet`);
  const closest = closestMatches(id, candidates, 3);
  return new NotFoundError(`No ticket '${id}'. Closest ids: ${closest.join(", ")}`);
}
