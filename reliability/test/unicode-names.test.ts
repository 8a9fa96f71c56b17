// Issue 12, item 10: names and ids in Unicode, on every path one arrives (tool arguments, resource
// URIs, prompt arguments, completions), on SQLite and PostgreSQL, over both transports and eras.

import { leaksIn } from "@toolshed/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDatabase, postgresReachable, type ServerDatabase, sqliteDatabase } from "./support/databases.js";
import { type Era, type FuzzTarget, idKey, startHttpTarget, startStdioTarget } from "./support/targets.js";

const postgres = await postgresReachable();

const NFC = "Café crème";
const NFD = "Cafe\u0301 cre\u0300me";

type Answer = {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};
type ToolResult = {
  isError?: boolean;
  content: Array<{ text: string }>;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, { code?: string; kind?: string }>;
};

const SURROGATE_HINT = "is a lone surrogate (half of an emoji or other pair); send the whole character or leave it out";

const combos = (["SQLite", "PostgreSQL"] as const).flatMap((db) =>
  (["stdio", "http"] as const).flatMap((transport) =>
    (["legacy", "modern"] as const).map((era) => ({ db, transport, era })),
  ),
);

describe.each(combos)("names and ids in Unicode on $db over $transport ($era era)", ({ db, transport, era }) => {
  const skip = db === "PostgreSQL" && !postgres;
  let database: ServerDatabase;
  let target: FuzzTarget;
  let nextId = 0;

  beforeAll(async () => {
    if (skip) return;
    database = db === "SQLite" ? sqliteDatabase(`unicode-${transport}-${era}`) : await postgresDatabase();
    target = await (transport === "stdio" ? startStdioTarget : startHttpTarget)(database.args, era as Era);
  });

  afterAll(async () => {
    await target?.stop();
    await database?.remove();
  });

  /** One request, its one answer (change notifications aside); no leak, no transport problem. */
  async function rpc(method: string, params: Record<string, unknown>): Promise<Answer> {
    const id = ++nextId;
    const text = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    const exchange = await target.send(text, [idKey(id)]);
    expect(exchange.transportProblems).toEqual([]);
    expect(leaksIn(exchange.raw, text)).toEqual([]);
    const mine = exchange.answers.filter((a) => (a as Answer).id === id) as Answer[];
    expect(mine).toHaveLength(1);
    return mine[0] as Answer;
  }

  async function tool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const answer = await rpc("tools/call", { name, arguments: args });
    expect(answer.error).toBeUndefined();
    return answer.result as unknown as ToolResult;
  }

  /** The code and message of a resources/read error (its data aside). */
  async function readError(uri: string): Promise<{ code: number; message: string } | undefined> {
    const { error } = await rpc("resources/read", { uri });
    return error && { code: error.code, message: error.message };
  }

  it.skipIf(skip)("a note title in NFD is the note whose title is in NFC, on every path", async () => {
    const created = await tool("create_note", { title: NFD, body: "x", tags: ["Cafe\u0301"] });
    expect(created.structuredContent).toMatchObject({ title: NFC, tags: ["café"] });

    const again = await tool("create_note", { title: NFC, body: "y" });
    expect(again.isError).toBe(true);
    expect(again.content[0]?.text).toBe(
      `Error executing tool create_note: A note titled '${NFC}' already exists; use update_note to change it`,
    );

    expect((await tool("get_note", { title: NFD })).structuredContent).toEqual({ title: NFC, body: "x", words: 1 });
    const listed = await tool("list_notes", { tag: "café" });
    expect(listed.structuredContent?.notes).toEqual([expect.objectContaining({ title: NFC, tags: ["café"] })]);

    const read = await rpc("resources/read", { uri: `note://${encodeURIComponent(NFD)}` });
    expect(read.result?.contents).toEqual([expect.objectContaining({ text: "x" })]);

    const prompt = await rpc("prompts/get", { name: "summarize_note", arguments: { title: NFD } });
    const promptText = (prompt.result as { messages: { content: { text: string } }[] }).messages[0]?.content.text;
    expect(promptText).toContain(`Summarize the note "${NFC}"`);

    const completion = await rpc("completion/complete", {
      ref: { type: "ref/resource", uri: "note://{title}" },
      argument: { name: "title", value: "Cafe\u0301 cr" },
    });
    expect(completion.result?.completion).toMatchObject({ values: [NFC] });
    const promptCompletion = await rpc("completion/complete", {
      ref: { type: "ref/prompt", name: "summarize_note" },
      argument: { name: "title", value: "Cafe\u0301 cr" },
    });
    expect(promptCompletion.result?.completion).toMatchObject({ values: [NFC] });

    expect((await tool("delete_note", { title: NFD })).structuredContent).toEqual({ deleted: true });
    expect((await tool("get_note", { title: NFC })).isError).toBe(true);
  });

  it.skipIf(skip)("a CRM account name in NFD is stored in NFC", async () => {
    const created = await tool("crm_create_account", { name: "Bru\u0302le\u0301e Holdings", tier: "startup", arr: 1 });
    expect(created.structuredContent?.name).toBe("Brûlée Holdings");
  });

  it.skipIf(skip)("a lone surrogate in a name or id argument is a C6 hint, for every pack", async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        "create_note",
        { title: "x\ud800", body: "b" },
        `title: must be valid Unicode text: character 2 ${SURROGATE_HINT}`,
      ],
      ["get_note", { title: "\udc00" }, `title: must be valid Unicode text: character 1 ${SURROGATE_HINT}`],
      ["list_notes", { tag: "a\udfff" }, `tag: must be valid Unicode text: character 2 ${SURROGATE_HINT}`],
      ["get_ticket", { id: "T-1\ud800" }, `id: must be valid Unicode text: character 4 ${SURROGATE_HINT}`],
      [
        "crm_get_account",
        { account_id: "acc_\ud800" },
        `account_id: must be valid Unicode text: character 5 ${SURROGATE_HINT}`,
      ],
      [
        "crm_create_account",
        { name: "A\udbff", tier: "startup", arr: 1 },
        `name: must be valid Unicode text: character 2 ${SURROGATE_HINT}`,
      ],
    ];
    for (const [name, args, hint] of cases) {
      const result = await tool(name, args);
      expect(result.isError, name).toBe(true);
      expect(result._meta?.["toolshed.dev/error"]).toMatchObject({ kind: "validation", code: "invalid_arguments" });
      expect(result.content[0]?.text.split("\n")).toContain(hint);
    }
  });

  it.skipIf(skip)("a lone surrogate in a prompt argument is -32602 with the hint, for every pack", async () => {
    const cases: Array<[string, Record<string, string>, string]> = [
      ["summarize_note", { title: "x\ud800" }, `title: must be valid Unicode text: character 2 ${SURROGATE_HINT}`],
      ["triage_ticket", { id: "T-1\ud800" }, `id: must be valid Unicode text: character 4 ${SURROGATE_HINT}`],
      [
        "account_brief",
        { account_id: "acc\ud800" },
        `account_id: must be valid Unicode text: character 4 ${SURROGATE_HINT}`,
      ],
    ];
    for (const [name, args, hint] of cases) {
      const { error } = await rpc("prompts/get", { name, arguments: args });
      expect(error?.code, name).toBe(-32602);
      expect(error?.message.startsWith(`Invalid arguments for prompt ${name}:\n`)).toBe(true);
      expect(error?.message.split("\n")).toContain(hint);
    }
  });

  it.skipIf(skip)(
    "a URI that percent-encodes a lone surrogate or bytes that are not UTF-8 is -32602 that says so, for every pack",
    async () => {
      const notText = (what: string, raw: string) =>
        `${what} in the URI does not decode to text (got "${raw}"): its bytes are not UTF-8 or encode half of a surrogate pair; percent-encode the UTF-8 of the whole text, as encodeURIComponent does`;
      for (const raw of ["%ED%A0%80", "a%ED%BF%BF", "%C3%28", "%FF"]) {
        expect(await readError(`note://${raw}`)).toEqual({ code: -32602, message: notText("title", raw) });
        expect(await readError(`crm://accounts/${raw}`)).toEqual({ code: -32602, message: notText("account_id", raw) });
        expect(await readError(`ticket://${raw}`)).toEqual({
          code: -32602,
          message: `Invalid resource URI ticket://${raw}:\nid: must be a ticket id such as "T-1001" (got "${raw}")`,
        });
      }
      expect(await readError("crm://accounts/acc%E0%A4%A")).toEqual({
        code: -32602,
        message:
          'account_id in the URI is not valid percent-encoding (got "acc%E0%A4%A"); encode it with encodeURIComponent',
      });
      expect(await readError("crm://accounts/acc%00")).toEqual({
        code: -32602,
        message: "account_id in the URI holds a NUL character (%00), which no account id has",
      });
    },
  );

  it.skipIf(skip)("an account URI is percent-decoded, as accountUri encodes it", async () => {
    const read = await rpc("resources/read", { uri: "crm://accounts/acc%5F1001" });
    expect(read.error).toBeUndefined();
    const [content] = (read.result?.contents ?? []) as Array<{ text: string }>;
    expect(JSON.parse(content?.text ?? "null")).toMatchObject({ id: "acc_1001" });
  });

  it.skipIf(skip)(
    "a lone surrogate sent as such in a URI is a clear JSON-RPC error, never an internal one",
    async () => {
      for (const [uri, variable, at] of [
        ["note://a\ud800", "title", 2],
        ["crm://accounts/\udc00", "account_id", 1],
        ["ticket://T-\ud800", "id", 3],
      ] as const) {
        const error = await readError(uri);
        if (transport === "http" && era === "modern") {
          // A 2026-07-28 client repeats the URI in the Mcp-Name header, which cannot carry a lone
          // surrogate: the header is refused before the body is read.
          expect(error?.code, uri).toBe(-32020);
          expect(error?.message).toMatch(/^Header mismatch: Mcp-Name header .* does not match the body's uri/);
        } else {
          expect(error?.code, uri).toBe(-32602);
          expect(error?.message.split("\n")).toContain(
            `${variable}: must be valid Unicode text: character ${at} ${SURROGATE_HINT}`,
          );
        }
      }
    },
  );
});
