import { NotFoundError } from "@toolshed/errors";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatTicketId, parseTicketId, ticketIdSchema, ticketNotFoundError, ticketNumberTypos } from "./ticket-id.js";

describe("ticket ids", () => {
  it("formats and parses T-<number> without leading zeros", () => {
    expect(formatTicketId(1001)).toBe("T-1001");
    expect(parseTicketId("T-1001")).toBe(1001);
    for (const bad of ["1001", "t-1001", "T-01001", "T-", "T-1001 ", "T-1234567890", "TK-1"]) {
      expect(parseTicketId(bad), bad).toBeUndefined();
    }
  });

  it("explains a malformed id in its Zod schema", () => {
    const parsed = ticketIdSchema("id").safeParse("ticket 7");
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('must be a ticket id such as "T-1001" (got "ticket 7")');
    // Longer than any id: the same one message, and maxLength published.
    const long = ticketIdSchema("id").safeParse("T-10000000000000");
    expect(long.error?.issues.map((i) => i.message)).toEqual([
      'must be a ticket id such as "T-1001" (got "T-10000000000000")',
    ]);
    expect(z.toJSONSchema(ticketIdSchema("id"))).toMatchObject({ type: "string", maxLength: 11 });
  });

  it("lists the numbers one typo away", () => {
    const typos = ticketNumberTypos(1021);
    expect(typos).toContain(1012); // swapped
    expect(typos).toContain(121); // dropped
    expect(typos).toContain(10021); // added
    expect(typos).toContain(1031); // changed
    expect(typos).not.toContain(1021);
    expect(typos).not.toContain(21); // "021" has a leading zero
    expect(typos.length).toBeLessThan(100);
  });

  it("builds not-found errors that name the closest ids", () => {
    const error = ticketNotFoundError("T-1021", ["T-1001", "T-1012", "T-1020", "T-2000"]);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe("No ticket 'T-1021'. Closest ids: T-1001, T-1020, T-1012");
    expect(ticketNotFoundError("T-1", []).message).toBe("No ticket 'T-1'. There are no tickets yet");
  });
});
