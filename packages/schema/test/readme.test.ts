import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { bad, searchTickets, ticketsPack } from "../examples/search-tickets.js";

it("the README sample is examples/search-tickets.ts and validates as it says", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = readFileSync(new URL("../examples/search-tickets.ts", import.meta.url), "utf8");
  expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
  expect(bad).toEqual({
    success: false,
    issues: [
      { path: "status", message: 'must be one of "open", "closed", "any" (got "pending")' },
      { path: "limit", message: "must be at most 50 (got 999)" },
    ],
  });
  expect(ticketsPack.tools).toEqual([searchTickets]);
  expect(searchTickets.listing.title).toBe("Search tickets");
});
