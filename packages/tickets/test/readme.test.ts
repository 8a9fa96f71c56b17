import { readFileSync } from "node:fs";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, it } from "vitest";

it("the README sample is examples/usage.ts and does what its comments say", async () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = readFileSync(new URL("../examples/usage.ts", import.meta.url), "utf8");
  expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);

  // Imports @toolshed/tickets through its built dist: run `npx tsup` first.
  const { store, found, created, retried, refused, missing } = await import("../examples/usage.js");

  const hits = (found as CallToolResult).structuredContent as { result: Array<{ id: string; status: string }> };
  expect(hits.result.map((t) => [t.id, t.status])).toEqual([
    ["T-1009", "open"],
    ["T-1001", "open"],
  ]);

  expect((created as CallToolResult).structuredContent).toMatchObject({
    id: "T-1017",
    title: "Password reset link expired",
    status: "open",
    similar: [
      { id: "T-1001", title: "Login fails after password reset" },
      { id: "T-1009", title: "Password reset email never arrives" },
    ],
  });
  expect(retried).toEqual(created);

  expect((refused as CallToolResult).isError).toBe(true);
  expect((refused as CallToolResult).content).toEqual([
    {
      type: "text",
      text: 'Invalid arguments for tool update_ticket_status:\nresolution: is required when status is "closed"',
    },
  ]);

  expect((missing as CallToolResult).content).toEqual([
    { type: "text", text: "Error executing tool get_ticket: No ticket 'T-1018'. Closest ids: T-1008, T-1010, T-1011" },
  ]);

  await expect(store.searchTickets({ text: "password", status: "any", limit: 1 })).rejects.toThrow(
    "The database connection is not open",
  );
});
