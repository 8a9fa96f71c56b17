import { describe, expect, it } from "vitest";
import { FuzzFailureError, fuzzPack } from "../src/index.js";
import { booksPack } from "./fixture.js";

describe("fuzzPack", () => {
  it("passes a correct pack, read-only tools only unless writes are allowed", async () => {
    const report = await fuzzPack(booksPack(), { seed: 7, runs: 150 });
    expect(report.tools).toEqual(["get_book", "search_books", "flaky"]);
    expect(report.skipped).toEqual(["add_book"]);
    expect(report.failures).toEqual([]);
    expect(report.runs).toBe(150 + 3 * 2);
    expect(report.counts.valid).toBeGreaterThan(10);
    expect(report.counts.breaking).toBeGreaterThan(10);
    expect(report.counts.notObject).toBeGreaterThan(0);

    const shelf = new Map<string, string>();
    const withWrites = await fuzzPack(booksPack({ shelf }), { seed: 7, runs: 100, allowWrites: true });
    expect(withWrites.tools).toContain("add_book");
    expect(withWrites.failures).toEqual([]);
    expect(shelf.size).toBeGreaterThan(0);
  });

  it("is deterministic for a seed", async () => {
    const a = await fuzzPack(booksPack({ planted: true }), { seed: 11, runs: 60, throwOnFailure: false });
    const b = await fuzzPack(booksPack({ planted: true }), { seed: 11, runs: 60, throwOnFailure: false });
    const cases = (r: typeof a) => r.failures.map((f) => [f.tool, f.era, f.label, JSON.stringify(f.args)]);
    expect(cases(a)).toEqual(cases(b));
    expect(a.counts).toEqual(b.counts);
  });

  it("finds a planted bug and reports the counterexample with its seed", async () => {
    const error = await fuzzPack(booksPack({ planted: true }), { seed: 42, runs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FuzzFailureError);
    const { report, message } = error as FuzzFailureError;
    expect(report.failures.length).toBeGreaterThan(0);
    for (const failure of report.failures) {
      expect(failure.tool).toBe("books_since");
      expect((failure.args as { year: number }).year).toBeGreaterThan(2000);
      expect(
        failure.problems.some((p) =>
          p.startsWith("internal error for a client's input: Error executing tool books_since (ref"),
        ),
      ).toBe(true);
    }
    expect(message).toMatch(
      /^fuzzPack: \d+ of 208 calls failed \(seed 42; replay with fuzzPack\(pack, \{ seed: 42, runs: 200 \}\) or TOOLSHED_FUZZ_SEED=42\)\n- books_since \(/,
    );
    expect(message).toContain("internal error for a client's input");
    // The exception behind the masked error, from the server's log (never from the answer).
    expect(message).toMatch(
      /the server logged for ref [0-9a-f]+: Error: index out of range at \/srv\/books\/src\/count\.ts:12 for \d+/,
    );
  });

  it("refuses to fuzz nothing, and names unknown tools", async () => {
    await expect(fuzzPack(booksPack(), { tools: ["add_book"] })).rejects.toThrow(
      "fuzzPack: nothing to fuzz: add_book may write (pass allowWrites: true to fuzz them)",
    );
    await expect(fuzzPack(booksPack(), { tools: ["nope"] })).rejects.toThrow("fuzzPack: no tool named nope");
  });
});
