import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type JSONRPCMessage, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { captureLogger } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ACCESS_OK } from "../src/access.js";
import {
  type ConnectOptions,
  createLogger,
  createServer,
  type ServerConnection,
  type ToolshedServer,
} from "../src/index.js";
import { AdmittedCalls } from "../src/internal.js";
import { miscPack } from "./fixtures.js";
import { ContextProbe, contextPack, docsPack, META } from "./more-fixtures.js";

// What one client connection keeps (server.connect): the handshake, the server's own requests to
// the client and their cancellation, as a client sees them on the wire.

interface Wire {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: {
    protocolVersion?: string;
    serverInfo?: unknown;
    capabilities?: { resources?: unknown };
    isError?: boolean;
    structuredContent?: unknown;
    content?: unknown;
    _meta?: unknown;
  };
  error?: { code: number; message: string };
}

let server: ToolshedServer;
let probe: ContextProbe;
const seenMethods: string[] = [];

beforeEach(() => {
  probe = new ContextProbe();
  seenMethods.length = 0;
  server = createServer({
    name: "conn",
    version: "1.0.0",
    packs: [miscPack, contextPack(probe), docsPack],
    logger: captureLogger(createLogger).logger,
    middleware: [
      {
        use: async (ctx, next) => {
          seenMethods.push(ctx.method);
          return next();
        },
        kinds: ["request"],
      },
    ],
  });
});

afterEach(async () => {
  await server.close();
});

async function peer(options?: ConnectOptions) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: Wire[] = [];
  const waiters: Array<() => void> = [];
  clientSide.onmessage = (message) => {
    received.push(message as Wire);
    for (const w of waiters.splice(0)) w();
  };
  await clientSide.start();
  const connection: ServerConnection = await server.connect(serverSide, options);
  const next = async (match: (m: Wire) => boolean): Promise<Wire> => {
    for (;;) {
      const found = received.find(match);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    connection,
    received,
    send: (message: object) => clientSide.send({ jsonrpc: "2.0", ...message } as JSONRPCMessage),
    answer: (id: string | number) => next((m) => m.id === id && m.method === undefined),
    next,
    close: () => clientSide.close(),
  };
}

const initialize = (capabilities: Record<string, unknown> = {}) => ({
  id: "init",
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo: { name: "wire", version: "2.0" } },
});

describe("the handshake", () => {
  it("answers initialize with the connection's capabilities and keeps what the client declared", async () => {
    const p = await peer();
    expect(p.connection.clientCapabilities()).toBeUndefined();
    await p.send(initialize({ elicitation: {} }));
    const { result } = await p.answer("init");
    expect(result?.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(result?.serverInfo).toEqual({ name: "conn", version: "1.0.0" });
    // A connection can be told of list changes, unlike a stateless request.
    expect(result?.capabilities?.resources).toEqual({ listChanged: true, subscribe: true });
    expect(p.connection.clientCapabilities()).toEqual({ elicitation: {} });
    expect(p.connection.clientInfo()).toEqual({ name: "wire", version: "2.0" });
    // The request-level middleware sees it, like every other request.
    expect(seenMethods).toEqual(["initialize"]);
    await p.close();
  });

  it("answers an initialize without a protocol version -32602 with one that would work, and keeps nothing", async () => {
    const p = await peer();
    await p.send({ id: 1, method: "initialize", params: { capabilities: { sampling: {} } } });
    const { error } = await p.answer(1);
    expect(error?.code).toBe(-32602);
    expect(error?.message).toBe(
      `Invalid params for initialize: params.protocolVersion must be a string such as ${LATEST_PROTOCOL_VERSION}`,
    );
    expect(p.connection.clientCapabilities()).toBeUndefined();
    await p.close();
  });

  it("answers an unknown method -32601 and goes on", async () => {
    const p = await peer();
    await p.send({ id: 1, method: "tools/frobnicate", params: {} });
    expect((await p.answer(1)).error?.code).toBe(-32601);
    await p.send({ id: 2, method: "ping" });
    expect((await p.answer(2)).result).toEqual({});
    await p.close();
  });
});

describe("the server's requests to the client", () => {
  it("time out after requestTimeoutMs: the client is told they are cancelled and the tool gets a retryable error", async () => {
    const p = await peer({ requestTimeoutMs: 50 });
    await p.send(initialize({ elicitation: {} }));
    await p.answer("init");
    await p.send({ id: 1, method: "tools/call", params: { name: "ask_user", arguments: {} } });
    const asked = await p.next((m) => m.method === "elicitation/create");
    const cancelled = await p.next((m) => m.method === "notifications/cancelled");
    expect(cancelled.params).toEqual({
      requestId: asked.id,
      reason: "the client did not answer elicitation/create within 50 ms",
    });
    const { result } = await p.answer(1);
    expect(result).toMatchObject({
      isError: true,
      content: [
        {
          type: "text",
          text: "Error executing tool ask_user: the client did not answer elicitation/create within 50 ms; temporary failure, safe to retry",
        },
      ],
      _meta: { [META]: { kind: "tool", code: "timeout", retryable: true } },
    });
    // An answer that comes too late is ignored; the connection goes on.
    await p.send({ id: asked.id, result: { action: "accept", content: { name: "Ada" } } });
    await p.send({ id: 2, method: "tools/call", params: { name: "three", arguments: {} } });
    expect((await p.answer(2)).result?.structuredContent).toEqual({ result: 3 });
    await p.close();
  });

  it("are cancelled with the call that made them: the client hears notifications/cancelled, the call gets no answer", async () => {
    const p = await peer();
    await p.send(initialize({ elicitation: {} }));
    await p.answer("init");
    await p.send({ id: 5, method: "tools/call", params: { name: "ask_user", arguments: {} } });
    const asked = await p.next((m) => m.method === "elicitation/create");
    await p.send({ method: "notifications/cancelled", params: { requestId: 5, reason: "stop" } });
    const cancelled = await p.next((m) => m.method === "notifications/cancelled");
    expect(cancelled.params?.requestId).toBe(asked.id);
    await p.send({ id: 6, method: "ping" });
    await p.answer(6);
    expect(p.received.filter((m) => m.id === 5 && m.method === undefined)).toEqual([]);
    await p.close();
  });

  it("fail the ask with the client's own error when it answers one", async () => {
    const p = await peer();
    await p.send(initialize({ sampling: {} }));
    await p.answer("init");
    await p.send({ id: 1, method: "tools/call", params: { name: "ask_model", arguments: { question: "hi" } } });
    const asked = await p.next((m) => m.method === "sampling/createMessage");
    await p.send({ id: asked.id, error: { code: -1, message: "the user declined" } });
    expect((await p.answer(1)).result).toMatchObject({
      isError: true,
      content: [
        {
          type: "text",
          text: "Error executing tool ask_model: the client answered sampling/createMessage with error -1: the user declined",
        },
      ],
      _meta: { [META]: { kind: "tool", code: "failed_precondition", retryable: false } },
    });
    await p.close();
  });

  it("are answered with a checked result: an answer of the wrong shape fails the ask, not the connection", async () => {
    const p = await peer();
    await p.send(initialize({ elicitation: {} }));
    await p.answer("init");
    await p.send({ id: 1, method: "tools/call", params: { name: "ask_user", arguments: {} } });
    const asked = await p.next((m) => m.method === "elicitation/create");
    await p.send({ id: asked.id, result: { action: "maybe" } });
    const r = (await p.answer(1)).result;
    console.error(JSON.stringify(r));
    expect(r?.isError).toBe(true);
    await p.send({ id: 2, method: "tools/call", params: { name: "ask_user", arguments: {} } });
    const again = await p.next((m) => m.method === "elicitation/create" && m.id !== asked.id);
    await p.send({ id: again.id, result: { action: "accept", content: { name: "Ada" } } });
    expect((await p.answer(2)).result?.structuredContent).toEqual({ result: "hello Ada" });
    await p.close();
  });
});

describe("closing", () => {
  it("aborts the calls in flight and calls onclose once, from either side", async () => {
    const p = await peer();
    let closes = 0;
    p.connection.onclose = () => closes++;
    await p.send({ id: 7, method: "tools/call", params: { name: "wait_for_cancel", arguments: {} } });
    await probe.started.promise;
    await p.close();
    expect(await probe.aborted.promise).toBeDefined();
    await p.connection.close();
    expect(closes).toBe(1);
  });
});

describe("AdmittedCalls", () => {
  const auth = { token: "t", clientId: "c", scopes: [] };
  const call = (id: number, name: string) => ({
    jsonrpc: "2.0" as const,
    id,
    method: "tools/call",
    params: { name, arguments: {} },
  });

  it("gives a checked access only to the request it was checked for, once", () => {
    const admitted = new AdmittedCalls();
    admitted.add(call(1, "add"), auth, ACCESS_OK);
    expect(admitted.take(1, "tools/call", { name: "add" }, auth)).toBe(ACCESS_OK);
    expect(admitted.take(1, "tools/call", { name: "add" }, auth)).toBeUndefined();
    // Another target, other credentials or another method under the same id: checked again by the core.
    admitted.add(call(2, "add"), auth, ACCESS_OK);
    expect(admitted.take(2, "tools/call", { name: "purge" }, auth)).toBeUndefined();
    admitted.add(call(3, "add"), auth, ACCESS_OK);
    expect(admitted.take(3, "tools/call", { name: "add" }, { ...auth })).toBeUndefined();
    admitted.add(call(4, "add"), auth, ACCESS_OK);
    expect(admitted.take(4, "prompts/get", { name: "add" }, auth)).toBeUndefined();
  });

  it("forgets an entry no request took", () => {
    const admitted = new AdmittedCalls();
    const release = admitted.add(call(1, "add"), auth, ACCESS_OK);
    release();
    expect(admitted.take(1, "tools/call", { name: "add" }, auth)).toBeUndefined();
  });
});
