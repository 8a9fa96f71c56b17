import type { HttpProcess } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, MCP_HEADERS, post, rawExchange, toolCall } from "./attack-support/http.js";
import { legitimateCall, whileAttacking } from "./attack-support/legit.js";
import { mb, sampleRss } from "./attack-support/rss.js";
import { startHttpServer, stopAll } from "./attack-support/server.js";
import { idKey, StdioChild } from "./support/stdio-child.js";
import { tempDir } from "./support/temp-db.js";

// Oversized and deeply nested bodies: the default 1 MiB limit, and a server with a 12 MiB limit
// that has to parse a 10 MB JSON body.
const TOKEN = "body-attack-token-0123456789abcdef";
const LEGIT = "body-legit-token-0123456789abcdef";
const MiB = 1024 * 1024;

let limited: HttpProcess;
let roomy: HttpProcess;

beforeAll(async () => {
  [limited, roomy] = await Promise.all([
    startHttpServer(["--demo", "--rate-limit", "100000"], {
      env: { TOOLSHED_TOKENS: `${TOKEN}:tools:read tools:write;${LEGIT}:tools:read` },
    }),
    startHttpServer(["--demo", "--max-body", "12m", "--rate-limit", "0"]),
  ]);
});
afterAll(stopAll);

const TOO_LARGE = {
  jsonrpc: "2.0",
  error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${MiB} bytes` },
  id: null,
};
const headers = { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` };
/** A create_note call whose body text makes the JSON `size` bytes long. */
const noteOfSize = (size: number) => {
  const empty = JSON.stringify(toolCall("create_note", { title: "huge", body: "" }));
  return Buffer.from(JSON.stringify(toolCall("create_note", { title: "huge", body: "x".repeat(size - empty.length) })));
};

describe("bodies over the limit (1 MiB by default)", () => {
  it.each([
    ["10 MB with Content-Length", 10 * MiB, true],
    ["10 MB chunked, no Content-Length (bytes counted as they stream)", 10 * MiB, false],
    ["1 MiB + 1 byte with Content-Length", MiB + 1, true],
    ["1 MiB + 1 byte chunked", MiB + 1, false],
  ])("%s: 413", async (_name, size, withLength) => {
    const body = noteOfSize(size);
    expect(body.length).toBe(size);
    const res = await whileAttacking(
      () => rawExchange(limited.port, { headers, ...(withLength ? { contentLength: body.length } : {}) }, body),
      () => legitimateCall(limited.url, LEGIT),
    );
    expect(res.status).toBe(413);
    expect(res.json).toEqual(TOO_LARGE);
    // Refused on its Content-Length: the server does not wait for the 10 MB to arrive.
    if (withLength && size > 2 * MiB) expect(res.bytesWritten).toBeLessThan(size);
  });

  it("exactly 1 MiB is read and answered (C6: the note body is too long)", async () => {
    const body = noteOfSize(MiB);
    const res = await rawExchange(limited.port, { headers, contentLength: body.length }, body);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ result: { isError: true } });
    expect((res.json as { result: { content: Array<{ text: string }> } }).result.content[0]?.text).toMatch(
      /^Invalid arguments for tool create_note:\nbody: must be at most 100000 characters \(got \d+\)/,
    );
  });
});

const DEPTH = 100_000;
const nest = (open: string, close: string, inner: string) => open.repeat(DEPTH) + inner + close.repeat(DEPTH);
const invalidArguments = (tool: string, line: string) => ({
  jsonrpc: "2.0",
  id: 1,
  result: {
    isError: true,
    content: [{ type: "text", text: `Invalid arguments for tool ${tool}:\n${line}` }],
  },
});

const NESTED = [
  {
    name: "a batch of nested arrays",
    body: nest("[", "]", "1"),
    status: 400,
    answer: [
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid Request: a message must be a JSON object" },
      },
    ],
  },
  {
    name: "a nested id",
    body: `{"jsonrpc":"2.0","id":${nest("[", "]", "1")},"method":"ping"}`,
    status: 400,
    answer: {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: 'Invalid Request: "id" must be a string or a number' },
    },
  },
  {
    name: "nested objects as a tool argument",
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"deep","body":"x","tags":${nest('{"a":', "}", "1")}}}}`,
    status: 200,
    answer: invalidArguments("create_note", "tags: must be an array (got an object)"),
  },
  {
    name: "nested arrays as a tool argument",
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_note","arguments":{"title":${nest("[", "]", '"x"')}}}}`,
    status: 200,
    answer: invalidArguments("get_note", "title: must be a string (got an array of 1 item)"),
  },
  {
    name: "nested objects in params._meta",
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":${nest('{"a":', "}", "1")}}}`,
    status: 200,
    answer: {
      jsonrpc: "2.0",
      id: 1,
      result: { tools: expect.arrayContaining([expect.objectContaining({ name: "get_note" })]) },
    },
  },
  {
    name: "a notification with nested params",
    body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":${nest("[", "]", "1")}}}`,
    status: 202,
    answer: undefined,
  },
];

describe(`JSON nested ${DEPTH} levels deep`, () => {
  it.each(NESTED)("$name: $status with the documented answer", async ({ body, status, answer }) => {
    expect(body.length).toBeLessThan(MiB);
    const res = await whileAttacking(
      () => post(limited.url, body, bearer(TOKEN)),
      () => legitimateCall(limited.url, LEGIT),
    );
    expect(res.status, res.text.slice(0, 300)).toBe(status);
    if (answer === undefined) expect(res.text).toBe("");
    else expect(res.json).toMatchObject(answer);
  });
});

// Issue 36: the same messages on one line each to the stdio server, which must answer them as HTTP
// does (ids and all) and go on serving.
describe(`JSON nested ${DEPTH} levels deep, over stdio`, () => {
  const temp = tempDir("nested-stdio");
  let stdio: StdioChild;
  beforeAll(async () => {
    stdio = await StdioChild.start(["--db", temp.file("toolshed.db"), "--demo"]);
  });
  afterAll(async () => {
    await stdio?.stop();
    temp.remove();
  });

  it.each(NESTED)("$name: the documented answer, and the server goes on", async ({ body, answer }) => {
    const expected = answer === undefined ? [] : [idKey(Array.isArray(answer) ? null : answer.id)];
    const lines = await stdio.exchange(body, expected);
    const answers = lines.map((l) => (l.ok ? l.value : l.raw));
    if (answer === undefined) expect(answers).toEqual([]);
    else expect(answers).toMatchObject(Array.isArray(answer) ? answer : [answer]);
    expect(stdio.alive).toBe(true);
  });
});

describe("10 MB of JSON that fits a raised limit (--max-body 12m)", () => {
  it.each([
    {
      name: "a 10 MB string argument",
      args: { title: "ten", body: "é".repeat(5 * MiB) },
      hint: "body: must be at most 100000 characters (got 5242880)",
    },
    {
      name: "240,000 tags of 40 characters",
      args: {
        title: "ten",
        body: "x",
        tags: Array.from({ length: 240_000 }, (_, i) => `tag-${i}-`.padEnd(40, "t")),
      },
      hint: "tags: must have at most 20 items (got 240000)",
    },
  ])("$name: parsed and answered, memory stays bounded", async ({ args, hint }) => {
    const body = Buffer.from(JSON.stringify(toolCall("create_note", args)));
    expect(body.length).toBeGreaterThan(9 * MiB);
    const rss = sampleRss(roomy.pid, 20);
    const res = await whileAttacking(
      () => rawExchange(roomy.port, { headers: { ...MCP_HEADERS }, contentLength: body.length }, body),
      () => legitimateCall(roomy.url),
    );
    const { peak } = rss.stop();
    console.log(`${body.length} byte body: peak RSS of the server ${mb(peak)} MB`);
    expect(peak).toBeLessThan(400 * MiB);
    expect(res.status).toBe(200);
    const result = (res.json as { result: { isError?: boolean; content: Array<{ text: string }> } }).result;
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain(hint);
    await legitimateCall(roomy.url);
  });
});

// Every unknown key is one line of the C6 answer (and one entry of _meta issues), however many.
const unknownKeys = (count: number) => ({
  title: "keys",
  ...Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v".repeat(12)])),
});

describe("a body of nothing but unknown argument keys", () => {
  it("1 MiB of them (38,000 keys) under the default limit: answered with C6, others still served", async () => {
    const body = Buffer.from(JSON.stringify(toolCall("get_note", unknownKeys(38_000))));
    expect(body.length).toBeLessThan(MiB);
    const res = await whileAttacking(
      () => rawExchange(limited.port, { headers, contentLength: body.length }, body),
      () => legitimateCall(limited.url, LEGIT),
    );
    expect(res.status).toBe(200);
    const text = (res.json as { result: { content: Array<{ text: string }> } }).result.content[0]?.text ?? "";
    expect(text).toMatch(/^Invalid arguments for tool get_note:\nk0: unknown argument; valid arguments: title\n/);
  });

  // parseArguments lists at most 20 problems and counts the rest, so the answer and the work stay bounded.
  it("a 10 MB object of 400,000 unknown keys is answered within seconds with a bounded answer", async () => {
    const body = Buffer.from(JSON.stringify(toolCall("get_note", unknownKeys(400_000))));
    const started = Date.now();
    const res = await whileAttacking(
      () => rawExchange(roomy.port, { headers: { ...MCP_HEADERS }, contentLength: body.length }, body),
      () => legitimateCall(roomy.url),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.text.length).toBeLessThan(64 * 1024);
  });
});
