import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseArguments } from "./arguments.js";
import { eachOnce } from "./each-once.js";

describe("eachOnce", () => {
  const input = z.object({ ids: z.array(z.string()).max(10).superRefine(eachOnce("id")) });

  it("passes a list that names each item once, and names every repeat with its count", () => {
    expect(parseArguments(input, { ids: ["a", "b"] })).toEqual({ success: true, data: { ids: ["a", "b"] } });
    const repeated = parseArguments(input, { ids: ["a", "b", "a", "b", "b", "c"] });
    expect(repeated.success).toBe(false);
    expect(repeated.success ? undefined : repeated.issues).toEqual([
      { path: "ids", message: "must list each id once; remove the repeats of 'a' (2 times), 'b' (3 times)" },
    ]);
  });

  it("says 'item' when given no noun, and compares numbers as values", () => {
    const numbers = z.array(z.number()).superRefine(eachOnce());
    const result = numbers.safeParse([1, 2, 1]);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe("must list each item once; remove the repeats of '1' (2 times)");
  });
});
