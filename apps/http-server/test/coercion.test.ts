// Lax coercion over HTTP in both eras: real toolshed-http processes (stateless and with sessions)
// serving the real CRM pack. The slips a model makes most (numbers as strings, an enum in another
// case, camelCase for a snake_case name) answer as the call that was meant; each is logged and counted.
import { CRM_COERCION, modernPost } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type HttpProcess, killChildren, removeTempDirs, resultText, startServer } from "./helpers.js";
import { parsePrometheus } from "./prometheus.js";

const {
  tool: TOOL,
  sent: SENT,
  meant: MEANT,
  coerced: COERCED,
  rounding: ROUNDING,
  rounded: ROUNDED,
  strict: STRICT,
} = CRM_COERCION;

/** A 2026-07-28 tools/call of the tool, with its _meta envelope and headers. */
const modernCall = (url: string, id: number, args: Record<string, unknown>) =>
  modernPost(url, id, "tools/call", { name: TOOL, arguments: args });

type Accounts = { accounts: Array<{ id: string; tier: string; arr: number }> };

let stateless: HttpProcess;
let sessions: HttpProcess;
beforeAll(async () => {
  [stateless, sessions] = await Promise.all([
    startServer(["--demo", "--metrics"]),
    startServer(["--demo", "--sessions", "--metrics"]),
  ]);
});
afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

/** The coercions counter, as "kind" -> count for the tool. */
async function coercionCounts(server: HttpProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  const families = parsePrometheus(text);
  const family =
    families.get("toolshed_tool_argument_coercions_total") ?? families.get("toolshed_tool_argument_coercions");
  expect(family?.type).toBe("counter");
  return Object.fromEntries(
    (family?.samples ?? [])
      .filter((s) => s.labels.gen_ai_tool_name === TOOL)
      .map((s) => [s.labels.toolshed_coercion_kind, s.value]),
  );
}

describe("lax coercion over HTTP", () => {
  it.each([
    ["stateless", () => stateless],
    ["with sessions", () => sessions],
  ])(
    "2025 (%s): the slips answer as the meant call, logged and counted; a rounding is refused",
    async (_mode, started) => {
      const server = started();
      const { client } = await connect(server.url);
      const meant = await client.callTool({ name: TOOL, arguments: MEANT });
      const coerced = await client.callTool({ name: TOOL, arguments: SENT });
      expect(coerced.isError).toBeUndefined();
      expect(coerced.structuredContent).toEqual(meant.structuredContent);
      const { accounts } = coerced.structuredContent as Accounts;
      expect(accounts.length).toBeGreaterThan(0);
      expect(accounts.every((a) => a.tier === "growth" && a.arr >= 1000)).toBe(true);
      const rounded = await client.callTool({ name: TOOL, arguments: ROUNDING });
      expect(resultText(rounded)).toBe(ROUNDED);
      await client.close();
      const logged = await server.waitForLog((line) => line.msg === "arguments coerced");
      expect(logged).toMatchObject({ tool: TOOL, coerced: COERCED });
      expect(await coercionCounts(server)).toEqual({ argument_name: 1, enum_case: 1, number: 2 });
    },
  );

  it("2026-07-28: the same calls with the _meta envelope and the Mcp-Method and Mcp-Name headers", async () => {
    for (const server of [stateless, sessions]) {
      const before = await coercionCounts(server);
      const meant = await modernCall(server.url, 1, MEANT);
      const coerced = await modernCall(server.url, 2, SENT);
      expect(coerced.status).toBe(200);
      const result = (coerced.json as { result: Record<string, unknown> }).result;
      expect(result).toMatchObject({ resultType: "complete" });
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual(
        (meant.json as { result: Record<string, unknown> }).result.structuredContent,
      );
      const rounded = await modernCall(server.url, 3, ROUNDING);
      expect(rounded.json).toMatchObject({
        id: 3,
        result: { resultType: "complete", isError: true, content: [{ type: "text", text: ROUNDED }] },
      });
      const after = await coercionCounts(server);
      expect(after.number).toBe((before.number ?? 0) + 2);
      expect(after.argument_name).toBe((before.argument_name ?? 0) + 1);
    }
  });

  it("--strict-arguments: the slips are refused in both eras, each named with what works; nothing counted", async () => {
    const strict = await startServer(["--demo", "--metrics", "--strict-arguments"]);
    const { client } = await connect(strict.url);
    const refused = await client.callTool({ name: TOOL, arguments: SENT });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toBe(STRICT);
    expect((await client.callTool({ name: TOOL, arguments: MEANT })).isError).toBeUndefined();
    await client.close();
    const modern = await modernCall(strict.url, 1, SENT);
    expect(modern.json).toMatchObject({
      id: 1,
      result: { resultType: "complete", isError: true, content: [{ type: "text", text: STRICT }] },
    });
    const text = await (await fetch(`${strict.base}/metrics`)).text();
    expect(text).not.toMatch(/toolshed_tool_argument_coercions\S*\{[^}]*crm_search_accounts/);
  });
});
