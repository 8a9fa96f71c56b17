import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { captureLogger } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger, createServer, StdioTransport, type ToolshedServer } from "../src/index.js";
import { miscPack, notesPack } from "./fixtures.js";
import { type RawMessage, sleep, stdioPipes } from "./more-fixtures.js";

let server: ToolshedServer;
let pipes: ReturnType<typeof stdioPipes>;
let transport: StdioTransport;

const line = (message: object) => `${JSON.stringify(message)}\n`;
const ping = (id: number | string) => line({ jsonrpc: "2.0", id, method: "ping" });

async function start(maxLineBytes?: number) {
  pipes = stdioPipes();
  transport = new StdioTransport({
    stdin: pipes.stdin,
    stdout: pipes.stdout,
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  });
  return server.connect(transport);
}

/** Sends text and returns the answers to it: exactly `n` new lines, and no more after a short wait. */
async function exchange(text: string | Buffer | Array<string | Buffer>, n: number): Promise<RawMessage[]> {
  const before = pipes.lines.length;
  for (const chunk of Array.isArray(text) ? text : [text]) {
    await pipes.write(chunk);
    await sleep(1);
  }
  const all = await pipes.read(before + n);
  await sleep(20);
  expect(pipes.lines.length).toBe(before + n);
  return all.slice(before);
}

beforeEach(() => {
  server = createServer({
    name: "stdio",
    version: "1.0.0",
    packs: [miscPack, notesPack],
    logger: captureLogger(createLogger).logger,
  });
});

afterEach(async () => {
  await server.close();
});

describe("StdioTransport with createServer", () => {
  it("answers a valid initialize and tools/list", async () => {
    await start();
    const [init] = await exchange(
      line({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
      1,
    );
    expect(init?.id).toBe(1);
    expect(init?.result?.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(init?.result?.serverInfo).toEqual({ name: "stdio", version: "1.0.0" });
    expect(init?.result?.capabilities).toMatchObject({ tools: { listChanged: false }, logging: {} });
    await exchange(line({ jsonrpc: "2.0", method: "notifications/initialized" }), 0);
    const [list] = await exchange(line({ jsonrpc: "2.0", id: 2, method: "tools/list" }), 1);
    expect(list?.id).toBe(2);
    const names = ((list?.result?.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
    expect(names).toContain("three");
    expect(names).toContain("get_note");
    const [call] = await exchange(
      line({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "three", arguments: {} } }),
      1,
    );
    expect(call).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: { content: [{ type: "text", text: "3" }], structuredContent: { result: 3 } },
    });
  });

  it("text that is not JSON is -32700 with id null", async () => {
    await start();
    expect(await exchange("not json\n", 1)).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the message is not valid JSON" } },
    ]);
  });

  it('"jsonrpc": "1.0" is -32600 with the request\'s id', async () => {
    await start();
    expect(await exchange(line({ jsonrpc: "1.0", id: 5, method: "ping" }), 1)).toEqual([
      { jsonrpc: "2.0", id: 5, error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0"' } },
    ]);
  });

  it("params that are an array is -32600 with the id", async () => {
    await start();
    expect(await exchange(line({ jsonrpc: "2.0", id: "a-1", method: "tools/list", params: [1, 2] }), 1)).toEqual([
      { jsonrpc: "2.0", id: "a-1", error: { code: -32600, message: 'Invalid Request: "params" must be an object' } },
    ]);
  });

  it("an id that is an object is -32600 with id null", async () => {
    await start();
    expect(await exchange(line({ jsonrpc: "2.0", id: { n: 1 }, method: "ping" }), 1)).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: 'Invalid Request: "id" must be a string or a number' },
      },
    ]);
  });

  it("a JSON value that is not an object, and an object that is neither request nor response, are -32600 id null", async () => {
    await start();
    expect(await exchange("42\n", 1)).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid Request: a message must be a JSON object" },
      },
    ]);
    const [answer] = await exchange(line({ jsonrpc: "2.0" }), 1);
    expect(answer?.id).toBeNull();
    expect(answer?.error?.code).toBe(-32600);
  });

  it("a JSON array batch gets one answer per element", async () => {
    await start();
    const answers = await exchange(
      line([
        { jsonrpc: "2.0", id: 10, method: "ping" },
        { jsonrpc: "1.0", id: 11, method: "ping" },
        { jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: "three", arguments: {} } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
      ]),
      3,
    );
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect([...byId.keys()].sort()).toEqual([10, 11, 12]);
    expect(byId.get(10)).toEqual({ jsonrpc: "2.0", id: 10, result: {} });
    expect(byId.get(11)?.error?.code).toBe(-32600);
    expect(byId.get(12)?.result?.structuredContent).toEqual({ result: 3 });
  });

  it("an empty batch is -32600", async () => {
    await start();
    expect(await exchange("[]\n", 1)).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: an empty batch" } },
    ]);
  });

  it("a notification with a bad shape gets no answer, and the stream goes on", async () => {
    await start();
    await exchange(line({ jsonrpc: "2.0", method: "notifications/initialized", params: [1] }), 0);
    await exchange(line({ jsonrpc: "1.0", method: "notifications/initialized" }), 0);
    expect(await exchange(ping(1), 1)).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
  });

  it("an error response with id null, such as this transport's own -32700 answer, is never answered", async () => {
    await start();
    const [own] = await exchange("not json\n", 1);
    expect(own?.id).toBeNull();
    // Fed back (a peer with the same transport would do this), it must not start an endless exchange.
    await exchange(line(own as object), 0);
    await exchange(line({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } }), 0);
    expect(await exchange(ping(1), 1)).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
  });

  it("an error response without an id is never answered", async () => {
    await start();
    await exchange(line({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } }), 0);
    expect(await exchange(ping(1), 1)).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
  });

  it("blank lines are ignored", async () => {
    await start();
    expect(await exchange(`\n  \n\r\n${ping(1)}`, 1)).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
  });

  it("an unknown method is -32601", async () => {
    await start();
    const [answer] = await exchange(line({ jsonrpc: "2.0", id: 4, method: "tools/explode" }), 1);
    expect(answer?.id).toBe(4);
    expect(answer?.error?.code).toBe(-32601);
  });

  it("a line split across several chunks is one message, even inside a multi-byte character", async () => {
    await start();
    const bytes = Buffer.from(
      line({
        jsonrpc: "2.0",
        id: 6,
        method: "tools/call",
        params: { name: "echo_text", arguments: { text: "héllo ✓" } },
      }),
    );
    const check = bytes.indexOf(Buffer.from("✓"));
    const chunks = [bytes.subarray(0, 7), bytes.subarray(7, check + 1), bytes.subarray(check + 1)];
    const [answer] = await exchange(chunks, 1);
    expect(answer?.id).toBe(6);
    expect(answer?.result?.structuredContent).toEqual({ result: "héllo ✓" });
  });

  it("several lines in one chunk are each answered", async () => {
    await start();
    const answers = await exchange(`${ping(1)}${ping(2)}not json\n${ping(3)}`, 4);
    // Errors the transport finds are written at once; requests are answered when their handler ends.
    expect(answers.filter((a) => a.id !== null)).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", id: 3, result: {} },
    ]);
    expect(answers.filter((a) => a.id === null).map((a) => a.error?.code)).toEqual([-32700]);
  });

  it("CRLF line endings work", async () => {
    await start();
    expect(await exchange(`${JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" })}\r\n`, 1)).toEqual([
      { jsonrpc: "2.0", id: 8, result: {} },
    ]);
  });
});

describe("StdioTransport maxLineBytes", () => {
  const tooLarge = {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "Invalid Request: message larger than 100 bytes" },
  };
  // A valid ping of more than 100 bytes: if it were let through, it would be answered with id 9.
  const bigPing = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping", params: { pad: "x".repeat(120) } });

  it("a line over the limit that arrives in pieces is -32600 and skipped; the next line still works", async () => {
    await start(100);
    const answers = await exchange([bigPing.slice(0, 60), bigPing.slice(60, 120), `${bigPing.slice(120)}\n`], 1);
    expect(answers).toEqual([tooLarge]);
    expect(await exchange(ping(10), 1)).toEqual([{ jsonrpc: "2.0", id: 10, result: {} }]);
  });

  it("a line over the limit that arrives in one chunk is -32600 and skipped too", async () => {
    await start(100);
    expect(await exchange(`${bigPing}\n${ping(10)}`, 2)).toEqual([tooLarge, { jsonrpc: "2.0", id: 10, result: {} }]);
  });

  it("a line whose last piece (with the newline) takes it over the limit is -32600 and skipped", async () => {
    await start(100);
    expect(await exchange([bigPing.slice(0, 90), `${bigPing.slice(90)}\n`, ping(10)], 2)).toEqual([
      tooLarge,
      { jsonrpc: "2.0", id: 10, result: {} },
    ]);
  });

  it("a line of exactly the limit is accepted", async () => {
    await start(100);
    const base = JSON.stringify({ jsonrpc: "2.0", id: 11, method: "ping", params: { pad: "" } });
    const exact = JSON.stringify({
      jsonrpc: "2.0",
      id: 11,
      method: "ping",
      params: { pad: "x".repeat(100 - base.length) },
    });
    expect(Buffer.byteLength(exact)).toBe(100);
    expect(await exchange([exact.slice(0, 50), `${exact.slice(50)}\n`], 1)).toEqual([
      { jsonrpc: "2.0", id: 11, result: {} },
    ]);
  });
});

describe("StdioTransport lifecycle and output", () => {
  it("the end of stdin closes the transport: onclose is called once and stdin is let go", async () => {
    pipes = stdioPipes();
    const t = new StdioTransport({ stdin: pipes.stdin, stdout: pipes.stdout });
    let closes = 0;
    t.onclose = () => closes++;
    await t.start();
    expect(pipes.stdin.listenerCount("data")).toBe(1);
    pipes.stdin.end();
    await sleep(20);
    expect(closes).toBe(1);
    expect(pipes.stdin.listenerCount("data")).toBe(0);
    await t.send({ jsonrpc: "2.0", id: 1, result: {} });
    expect(pipes.written()).toBe("");
  });

  it("through createServer, the end of stdin closes the connection and calls the transport's onclose once", async () => {
    pipes = stdioPipes();
    const t = new StdioTransport({ stdin: pipes.stdin, stdout: pipes.stdout });
    let closes = 0;
    t.onclose = () => closes++;
    const connection = await server.connect(t);
    let serverCloses = 0;
    connection.onclose = () => serverCloses++;
    pipes.stdin.end();
    await sleep(20);
    expect(serverCloses).toBe(1);
    expect(closes).toBe(1);
  });

  it("nothing but JSON-RPC lines is ever written to stdout", async () => {
    await start();
    const session = [
      line({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
      line({ jsonrpc: "2.0", method: "notifications/initialized" }),
      line({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "leaky", arguments: {} } }),
      line({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "count_up", arguments: { to: 2 }, _meta: { progressToken: 1 } },
      }),
      line({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "nope" } }),
      line({ jsonrpc: "2.0", id: 5, method: "resources/read", params: { uri: "note://nope" } }),
      "not json\n",
      "[]\n",
    ];
    // 1 initialize, 1 leaky, 2 progress + 2 log messages + 1 result for count_up, 1 nope, 1 read, 2 errors.
    await exchange(session.join(""), 11);
    const written = pipes.written();
    expect(written.endsWith("\n")).toBe(true);
    const lines = written.slice(0, -1).split("\n");
    expect(lines).toHaveLength(11);
    for (const l of lines) {
      const message = JSON.parse(l) as RawMessage;
      expect(message.jsonrpc).toBe("2.0");
      expect(typeof message).toBe("object");
    }
    expect(written).not.toContain("hunter2");
    expect(written).not.toContain("    at ");
  });
});
