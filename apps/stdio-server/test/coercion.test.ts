// Lax coercion over stdio in both eras, the real CRM pack in a real toolshed-stdio process: the
// slips a model makes most answer as the call that was meant, and each coerced call is logged.
import { CRM_COERCION, modernEnvelope } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, cleanup, connectClient, spawnCli, tempDir } from "./helpers.js";

afterEach(cleanup);

const demoArgs = () => ["--db", tempDir().file("toolshed.db"), "--demo"];
const {
  tool: TOOL,
  sent: SENT,
  meant: MEANT,
  coerced: COERCED,
  rounding: ROUNDING,
  rounded: ROUNDED,
  strict: STRICT,
} = CRM_COERCION;

/** A 2026-07-28 tools/call line of the tool, with its _meta envelope. */
const modern = (id: number, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { _meta: modernEnvelope(), name: TOOL, arguments: args },
});

type Accounts = { accounts: Array<{ tier: string; arr: number }> };

/** The "arguments coerced" log lines on a server's stderr. */
function coercedLines(stderr: string) {
  return stderr
    .split("\n")
    .filter((line) => line.includes('"msg":"arguments coerced"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("lax coercion over stdio", () => {
  it("2025: the slips answer as the meant call and are logged; a rounding is refused", async () => {
    const { client, stderr } = await connectClient(demoArgs());
    const meant = await client.callTool({ name: TOOL, arguments: MEANT });
    const coerced = await client.callTool({ name: TOOL, arguments: SENT });
    expect(coerced.isError).toBeUndefined();
    expect(coerced.structuredContent).toEqual(meant.structuredContent);
    const { accounts } = coerced.structuredContent as Accounts;
    expect(accounts.length).toBeGreaterThan(0);
    expect(accounts.every((a) => a.tier === "growth" && a.arr >= 1000)).toBe(true);
    const rounded = await client.callTool({ name: TOOL, arguments: ROUNDING });
    expect(rounded.content).toEqual([{ type: "text", text: ROUNDED }]);
    expect(coercedLines(stderr())).toEqual([expect.objectContaining({ tool: TOOL, coerced: COERCED })]);
  });

  it("2026-07-28: the same calls with the _meta envelope on raw lines", async () => {
    const cli = spawnCli(demoArgs());
    cli.send(modern(1, MEANT));
    cli.send(modern(2, SENT));
    cli.send(modern(3, ROUNDING));
    await cli.waitForLines(3);
    const byId = new Map(cli.messages().map((m) => [m.id, (m.result ?? {}) as Record<string, unknown>]));
    expect(byId.get(2)).toMatchObject({ resultType: "complete" });
    expect(byId.get(2)?.isError).toBeUndefined();
    expect(byId.get(2)?.structuredContent).toEqual(byId.get(1)?.structuredContent);
    expect(byId.get(3)).toMatchObject({
      resultType: "complete",
      isError: true,
      content: [{ type: "text", text: ROUNDED }],
    });
    await cli.waitForLog("arguments coerced");
    expect(coercedLines(cli.stderr())).toEqual([expect.objectContaining({ tool: TOOL, coerced: COERCED })]);
  });

  it.each([
    ["--strict-arguments", [], ["--strict-arguments"]],
    ["TOOLSHED_STRICT_ARGUMENTS=1", [["TOOLSHED_STRICT_ARGUMENTS", "1"]], []],
  ] as const)(
    "%s: the slips are refused, each named with what works, and nothing is logged as coerced",
    async (_name, env, flags) => {
      const { client, stderr } = await connectClient([...demoArgs(), ...flags], cleanEnv(Object.fromEntries(env)));
      const refused = await client.callTool({ name: TOOL, arguments: SENT });
      expect(refused).toMatchObject({ isError: true, content: [{ type: "text", text: STRICT }] });
      const meant = await client.callTool({ name: TOOL, arguments: MEANT });
      expect(meant.isError).toBeUndefined();
      expect(coercedLines(stderr())).toEqual([]);
    },
  );
});
