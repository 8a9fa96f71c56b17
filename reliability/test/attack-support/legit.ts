import { expect } from "vitest";
import { bearer, post, toolCall } from "./http.js";

/**
 * The call a legitimate client makes while an attack runs: a read of a demo note with a valid
 * token (or none, where the server has no auth). It must succeed with the note's content.
 */
export async function legitimateCall(url: string, token?: string): Promise<void> {
  const answer = await post(url, toolCall("get_note", { title: "groceries" }, "legit"), token ? bearer(token) : {});
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json).toMatchObject({
    jsonrpc: "2.0",
    id: "legit",
    result: { structuredContent: { title: "groceries", body: "milk, eggs", words: 2 } },
  });
}

/** Runs the attack and, while it is under way, `calls` legitimate calls one after the other. */
export async function whileAttacking<T>(attack: () => Promise<T>, legit: () => Promise<void>, calls = 3): Promise<T> {
  const attacking = attack();
  for (let i = 0; i < calls; i++) await legit();
  return attacking;
}
