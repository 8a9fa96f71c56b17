import { createHash } from "node:crypto";
import { Agent, createServer as createNodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createHttpApp } from "@toolshed/http";
import { definePack, defineTool } from "@toolshed/schema";
import { createServer } from "@toolshed/server";
import { type HttpProcess, MODERN_VERSION, modernEnvelope, silentLogger } from "@toolshed/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { bearer, type HttpAnswer, post, rawExchange } from "./attack-support/http.js";
import { legitimateCall } from "./attack-support/legit.js";
import { mb, rssOf, sampleRss } from "./attack-support/rss.js";
import { startHttpServer, stopAll } from "./attack-support/server.js";

// Attacks on 2026-07-28 multi round-trip requests (MRTR): the signed requestState that carries a
// call's answers between rounds, against the real http server with two callers (two tokens).
const WRITE = "mrtr-write-token-0123456789abcdef";
const READ = "mrtr-read-token-0123456789abcdef";
const TOKENS = `${WRITE}:tools:read tools:write;${READ}:tools:read`;
const FIXTURE = fileURLToPath(new URL("./attack-support/mrtr-server.mjs", import.meta.url));

let server: HttpProcess;
/** The same server with a 16 MiB body limit, so that a 10 MB state reaches the request state check. */
let roomy: HttpProcess;

beforeAll(async () => {
  const options = { script: FIXTURE, env: { TOOLSHED_TOKENS: TOKENS } };
  // Rate limits are off: one test sends thousands of requests on purpose (floods are in attack-slow-flood).
  [server, roomy] = await Promise.all([
    startHttpServer(["--demo", "--rate-limit", "0"], options),
    startHttpServer(["--demo", "--rate-limit", "0", "--max-body", "16m"], options),
  ]);
});
afterAll(async () => {
  await stopAll();
});

const CAPS = { elicitation: {} };
const YES = { confirm: { action: "accept", content: { ok: true } } };
let nextId = 0;

/** A 2026-07-28 request as a raw client sends it (envelope with elicitation, the headers that echo it). */
function modern(
  target: HttpProcess,
  token: string,
  method: "tools/call" | "prompts/get",
  params: Record<string, unknown>,
  agent?: Agent,
): Promise<HttpAnswer> {
  const id = ++nextId;
  return post(
    target.url,
    { jsonrpc: "2.0", id, method, params: { _meta: modernEnvelope(CAPS), ...params } },
    {
      ...bearer(token),
      "mcp-protocol-version": MODERN_VERSION,
      "mcp-method": method,
      "mcp-name": String(params.name),
    },
    agent ? { agent } : {},
  );
}

interface Round {
  resultType?: string;
  requestState?: unknown;
  inputRequests?: Record<string, { method: string; params?: { message?: string } }>;
  structuredContent?: { action: string; confirmed: boolean; run: number };
  messages?: Array<{ content: { text: string } }>;
}
const resultOf = (answer: HttpAnswer) => (answer.json as { result?: Round }).result;
const errorOf = (answer: HttpAnswer) => (answer.json as { error?: { code: number; message: string } }).error;

/** Starts a call that asks the user and returns the state of its input_required answer. */
async function started(
  token: string,
  method: "tools/call" | "prompts/get",
  name: string,
  args: Record<string, string>,
  target = server,
): Promise<string> {
  const answer = await modern(target, token, method, { name, arguments: args });
  expect(answer.status, answer.text).toBe(200);
  const round = resultOf(answer);
  expect(round, answer.text).toMatchObject({
    resultType: "input_required",
    inputRequests: { confirm: { method: "elicitation/create", params: { message: `Really ${args.action}?` } } },
  });
  expect(typeof round?.requestState).toBe("string");
  return round?.requestState as string;
}

/** How many times each asking handler ran so far (tools by name, the prompt as prompt:mrtr_confirm). */
async function runs(target = server): Promise<Record<string, number>> {
  const answer = await modern(target, WRITE, "tools/call", { name: "mrtr_runs", arguments: {} });
  const runsNow = resultOf(answer)?.structuredContent as unknown as { runs: Record<string, number> } | undefined;
  expect(runsNow, answer.text).toBeDefined();
  return runsNow?.runs ?? {};
}

/** The refusal every bad state gets: 200 with JSON-RPC -32602 naming requestState and what to do. */
function expectRefused(answer: HttpAnswer, why: RegExp): void {
  expect(answer.status, answer.text).not.toBe(500);
  expect(errorOf(answer), answer.text).toMatchObject({ code: -32602 });
  const message = errorOf(answer)?.message ?? "";
  expect(message).toMatch(/^Invalid params: requestState /);
  expect(message).toMatch(why);
  expect(message).toMatch(/send the request again without requestState and inputResponses to start over$/);
  expect(answer.text).not.toMatch(/at .*\.js:\d+/);
}

describe("a requestState replayed by the same caller", () => {
  it("runs the handler again, exactly as a fresh retry with the same answers does", async () => {
    const args = { action: "replay" };
    const state = await started(WRITE, "tools/call", "mrtr_confirm", args);
    const before = (await runs()).mrtr_confirm ?? 0;
    const retry = () =>
      modern(server, WRITE, "tools/call", {
        name: "mrtr_confirm",
        arguments: args,
        inputResponses: YES,
        requestState: state,
      });
    const first = await retry();
    const replayed = await retry();
    // Without the state at all: the client's own answers are all a state carries.
    const fresh = await modern(server, WRITE, "tools/call", {
      name: "mrtr_confirm",
      arguments: args,
      inputResponses: YES,
    });
    for (const [n, answer] of [first, replayed, fresh].entries()) {
      expect(answer.status, answer.text).toBe(200);
      expect(resultOf(answer), answer.text).toMatchObject({
        resultType: "complete",
        structuredContent: { action: "replay", confirmed: true, run: before + n + 1 },
      });
    }
    expect((await runs()).mrtr_confirm).toBe(before + 3);
    // The answers of a replayed state are the client's to change, as in any retry.
    const declined = await modern(server, WRITE, "tools/call", {
      name: "mrtr_confirm",
      arguments: args,
      inputResponses: { confirm: { action: "decline" } },
      requestState: state,
    });
    expect(resultOf(declined)).toMatchObject({ resultType: "complete", structuredContent: { confirmed: false } });
  });
});

describe("a requestState presented by another caller", () => {
  it("is -32602 'belongs to another request' and the handler does not run, either way round", async () => {
    const args = { action: "steal" };
    for (const [owner, thief] of [
      [WRITE, READ],
      [READ, WRITE],
    ] as const) {
      const state = await started(owner, "tools/call", "mrtr_confirm", args);
      const before = await runs();
      const stolen = await modern(server, thief, "tools/call", {
        name: "mrtr_confirm",
        arguments: args,
        inputResponses: YES,
        requestState: state,
      });
      expect(stolen.status).toBe(200);
      expectRefused(stolen, /belongs to another request \(method, name, arguments or caller differ\)/);
      expect(await runs()).toEqual(before);
      // The refusal spent nothing: the owner's retry still completes.
      const owned = await modern(server, owner, "tools/call", {
        name: "mrtr_confirm",
        arguments: args,
        inputResponses: YES,
        requestState: state,
      });
      expect(resultOf(owned), owned.text).toMatchObject({
        resultType: "complete",
        structuredContent: { confirmed: true },
      });
    }
  });
});

/** The parts of a state: base64url JSON payload, a dot, the base64url HMAC-SHA256 of the payload text. */
function split(state: string): { body: string; mac: string; payload: Record<string, unknown> } {
  const [body = "", mac = ""] = state.split(".");
  return { body, mac, payload: JSON.parse(Buffer.from(body, "base64url").toString("utf8")) };
}
const reencoded = (state: string, change: (payload: Record<string, unknown>) => void): string => {
  const { mac, payload } = split(state);
  change(payload);
  return `${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${mac}`;
};
/** The server's digest of arguments (sorted keys, SHA-256, base64url): what a forger would compute. */
const digest = (args: Record<string, string>) =>
  createHash("sha256")
    .update(
      `{${Object.keys(args)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${JSON.stringify(args[k])}`)
        .join(",")}}`,
    )
    .digest("base64url");
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** The MAC's last character with other low bits: base64url of 32 bytes has 2 unused bits there. */
function otherPaddingBits(mac: string): string {
  const last = BASE64URL.indexOf(mac.at(-1) ?? "A");
  return mac.slice(0, -1) + BASE64URL[(last & ~3) | ((last + 1) & 3)];
}

interface Tamper {
  name: string;
  /** The requestState to send instead of the one issued (any JSON value). */
  state: (issued: string, foreign: string) => unknown;
  /** Arguments to send, when the attack needs others. */
  args?: Record<string, string>;
  why: RegExp;
}
const NOT_ISSUED = /was not issued by this server or was changed/;
const NOT_STRING = /must be the string this server sent/;

const tampered: Tamper[] = [
  {
    name: "a flipped byte in the MAC",
    state: (s) => {
      const { body, mac } = split(s);
      return `${body}.${mac[0] === "A" ? "B" : "A"}${mac.slice(1)}`;
    },
    why: NOT_ISSUED,
  },
  {
    name: "the MAC with other unused bits in its last character",
    state: (s) => `${split(s).body}.${otherPaddingBits(split(s).mac)}`,
    why: NOT_ISSUED,
  },
  { name: "the MAC with base64 padding appended", state: (s) => `${s}=`, why: NOT_ISSUED },
  { name: "the MAC followed by a second dot and more", state: (s) => `${s}.AAAA`, why: NOT_ISSUED },
  { name: "the MAC followed by a newline", state: (s) => `${s}\n`, why: NOT_ISSUED },
  {
    name: "the payload re-encoded with another principal and the old MAC",
    state: (s) => reencoded(s, (p) => (p.p = "p:static:attacker")),
    why: NOT_ISSUED,
  },
  {
    name: "the payload re-encoded for other arguments, sent with those arguments, and the old MAC",
    state: (s) => reencoded(s, (p) => (p.d = digest({ action: "delete everything" }))),
    args: { action: "delete everything" },
    why: NOT_ISSUED,
  },
  {
    name: "the payload re-encoded with an expiry a year later and the old MAC",
    state: (s) => reencoded(s, (p) => (p.x = Number(p.x) + 365 * 24 * 3600_000)),
    why: NOT_ISSUED,
  },
  {
    name: "the payload re-encoded with answers added and the old MAC",
    state: (s) => reencoded(s, (p) => (p.r = YES)),
    why: NOT_ISSUED,
  },
  { name: "a truncated state (last 10 characters cut)", state: (s) => s.slice(0, -10), why: NOT_ISSUED },
  { name: "the payload and its dot, no MAC", state: (s) => `${split(s).body}.`, why: NOT_ISSUED },
  { name: "a state without a dot (payload and MAC run together)", state: (s) => s.replace(".", ""), why: NOT_ISSUED },
  { name: "the MAC alone", state: (s) => split(s).mac, why: NOT_ISSUED },
  { name: "a state issued by another server (another secret)", state: (_s, foreign) => foreign, why: NOT_ISSUED },
  { name: "an empty string", state: () => "", why: NOT_STRING },
  { name: "a number", state: () => 42, why: NOT_STRING },
  { name: "an object", state: (s) => ({ state: s }), why: NOT_STRING },
  { name: "null", state: () => null, why: NOT_STRING },
  { name: "an array", state: (s) => [s], why: NOT_STRING },
  { name: "true", state: () => true, why: NOT_STRING },
  {
    name: "a 70 KB string (over the 64 KiB limit)",
    state: () => "A".repeat(70_000),
    why: /is larger than 65536 bytes/,
  },
];

describe("a tampered or malformed requestState", () => {
  let issued: string;
  let foreign: string;
  const args = { action: "deploy" };
  beforeAll(async () => {
    [issued, foreign] = await Promise.all([
      started(WRITE, "tools/call", "mrtr_confirm", args),
      started(WRITE, "tools/call", "mrtr_confirm", args, roomy),
    ]);
  });

  it.each(tampered)("$name: 200 with -32602, the handler does not run, the server still serves", async (attack) => {
    const before = await runs();
    const answer = await modern(server, WRITE, "tools/call", {
      name: "mrtr_confirm",
      arguments: attack.args ?? args,
      inputResponses: YES,
      requestState: attack.state(issued, foreign),
    });
    expect(answer.status, answer.text).toBe(200);
    expectRefused(answer, attack.why);
    expect(await runs()).toEqual(before);
    await legitimateCall(server.url, READ);
  });

  it("the untouched state still completes (so each refusal above is about the change)", async () => {
    const answer = await modern(server, WRITE, "tools/call", {
      name: "mrtr_confirm",
      arguments: args,
      inputResponses: YES,
      requestState: issued,
    });
    expect(resultOf(answer), answer.text).toMatchObject({
      resultType: "complete",
      structuredContent: { action: "deploy", confirmed: true },
    });
  });

  it("a 10 MB state: 413 under the default 1 MiB body limit; with a 16 MiB limit -32602, over 64 KiB", async () => {
    const state = "A".repeat(10 * 1024 * 1024);
    const body = (id: number) =>
      Buffer.from(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { _meta: modernEnvelope(CAPS), name: "mrtr_confirm", arguments: args, requestState: state },
        }),
      );
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${WRITE}`,
      "mcp-protocol-version": MODERN_VERSION,
      "mcp-method": "tools/call",
      "mcp-name": "mrtr_confirm",
    };
    const limited = await rawExchange(server.port, { headers, contentLength: body(1).length }, body(1));
    expect(limited.status, limited.text).toBe(413);
    const before = await runs(roomy);
    const sentAt = Date.now();
    const checked = await rawExchange(roomy.port, { headers, contentLength: body(2).length }, body(2));
    const took = Date.now() - sentAt;
    expect(checked.status, checked.text).toBe(200);
    expectRefused(checked, /is larger than 65536 bytes/);
    expect(await runs(roomy)).toEqual(before);
    await legitimateCall(roomy.url, READ);
    await legitimateCall(server.url, READ);
    process.stderr.write(`[attack-mrtr] 10 MB requestState refused in ${took} ms (16 MiB body limit)\n`);
  });
});

describe("a requestState used for another call", () => {
  const args = { action: "switch" };
  const retry = (method: "tools/call" | "prompts/get", name: string, requestState: string) =>
    modern(server, WRITE, method, { name, arguments: args, inputResponses: YES, requestState });

  it("made for tool A, sent to tool B with the same arguments and question: -32602, B does not run", async () => {
    const state = await started(WRITE, "tools/call", "mrtr_confirm", args);
    const before = await runs();
    expectRefused(await retry("tools/call", "mrtr_confirm_b", state), /belongs to another request/);
    expect(await runs()).toEqual(before);
    // B's own state works for B.
    const own = await retry("tools/call", "mrtr_confirm_b", await started(WRITE, "tools/call", "mrtr_confirm_b", args));
    expect(resultOf(own), own.text).toMatchObject({ resultType: "complete", structuredContent: { confirmed: true } });
  });

  it("made by tools/call, sent to prompts/get of the same name and arguments, and back: -32602, nothing runs", async () => {
    const toolState = await started(WRITE, "tools/call", "mrtr_confirm", args);
    const promptState = await started(WRITE, "prompts/get", "mrtr_confirm", args);
    const before = await runs();
    expectRefused(await retry("prompts/get", "mrtr_confirm", toolState), /belongs to another request/);
    expectRefused(await retry("tools/call", "mrtr_confirm", promptState), /belongs to another request/);
    expect(await runs()).toEqual(before);
    // Each state works for the call it was made for.
    const prompt = await retry("prompts/get", "mrtr_confirm", promptState);
    expect(resultOf(prompt), prompt.text).toMatchObject({ resultType: "complete" });
    expect(resultOf(prompt)?.messages?.[0]?.content.text).toMatch(/^switch confirmed=true run=\d+$/);
    const tool = await retry("tools/call", "mrtr_confirm", toolState);
    expect(resultOf(tool), tool.text).toMatchObject({ resultType: "complete", structuredContent: { confirmed: true } });
  });
});

// The http server has no TTL flag: expiry is proven on the library, createServer + createHttpApp
// behind a node:http server in this process, with real HTTP requests and a fake clock (Date only).
describe("an expired requestState (library: createServer({ requestState }) behind createHttpApp)", () => {
  const T0 = Date.parse("2026-07-28T12:00:00.000Z");
  const confirm = defineTool({
    name: "ttl_confirm",
    description: "Asks the user to confirm, then says what they answered.",
    input: z.object({ action: z.string().describe("What to confirm") }),
    output: z.object({ confirmed: z.boolean() }),
    handler: async ({ action }, ctx) => {
      const answer = await ctx.elicitInput(
        { message: `Really ${action}?`, requestedSchema: { type: "object", properties: {} } },
        { key: "confirm" },
      );
      return { confirmed: answer.action === "accept" };
    },
  });
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const close of closers.splice(0)) await close();
  });

  async function serve(requestState?: { ttlMs: number }) {
    const toolshed = createServer({
      name: "ttl",
      version: "1.0.0",
      packs: [definePack({ name: "ttl", tools: [confirm] })],
      logger: silentLogger,
      telemetry: false,
      ...(requestState ? { requestState } : {}),
    });
    const app = createHttpApp({ server: toolshed, logger: silentLogger, onRequest: () => {} });
    const http = createNodeServer(app.nodeListener);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    closers.push(async () => {
      await app.close({ graceMs: 0 });
      await new Promise((resolve) => http.close(resolve));
    });
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const call = (params: Record<string, unknown>) =>
      post(
        url,
        {
          jsonrpc: "2.0",
          id: ++nextId,
          method: "tools/call",
          params: { _meta: modernEnvelope(CAPS), name: "ttl_confirm", arguments: { action: "wait" }, ...params },
        },
        { "mcp-protocol-version": MODERN_VERSION, "mcp-method": "tools/call", "mcp-name": "ttl_confirm" },
      );
    return call;
  }

  it.each([
    { name: "the default 10 minutes", options: undefined, ttlMs: 10 * 60_000 },
    { name: "ttlMs 30 000", options: { ttlMs: 30_000 }, ttlMs: 30_000 },
  ])(
    "$name: valid up to its expiry to the millisecond, -32602 'has expired' one millisecond later",
    async ({ options, ttlMs }) => {
      vi.useFakeTimers({ toFake: ["Date"], now: T0 });
      const call = await serve(options);
      const first = await call({});
      const state = resultOf(first)?.requestState;
      expect(resultOf(first), first.text).toMatchObject({ resultType: "input_required" });
      const answered = { inputResponses: { confirm: { action: "accept", content: {} } }, requestState: state };

      vi.setSystemTime(T0 + ttlMs);
      const last = await call(answered);
      expect(resultOf(last), last.text).toMatchObject({
        resultType: "complete",
        structuredContent: { confirmed: true },
      });

      vi.setSystemTime(T0 + ttlMs + 1);
      const late = await call(answered);
      expect(late.status).toBe(200);
      expectRefused(late, /has expired/);
      // Starting over works.
      const again = await call({});
      expect(resultOf(again)).toMatchObject({ resultType: "input_required" });
    },
  );
});

describe("input rounds never answered", () => {
  const ROUNDS = 5_000;
  const PAD = "p".repeat(32 * 1024);

  it(`${ROUNDS} tools/call that end input_required and are never answered: the server keeps nothing of them`, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const ask = async (n: number) => {
      const answer = await modern(
        server,
        WRITE,
        "tools/call",
        { name: "mrtr_confirm", arguments: { action: `a${n}`, pad: PAD } },
        agent,
      );
      expect(answer.status).toBe(200);
      expect(resultOf(answer)?.resultType).toBe("input_required");
    };
    const batch = async (from: number, count: number) => {
      let next = from;
      const worker = async () => {
        while (next < from + count) await ask(next++);
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    };
    // Warm up (JIT, buffers, heap) so that what follows measures the rounds, not the start.
    await batch(0, 500);
    const baseline = rssOf(server.pid) ?? 0;
    const sampler = sampleRss(server.pid, 100);
    const floodAt = Date.now();
    await batch(500, ROUNDS / 2);
    const half = rssOf(server.pid) ?? 0;
    await batch(500 + ROUNDS / 2, ROUNDS / 2);
    const took = Date.now() - floodAt;
    const rss = sampler.stop();
    agent.destroy();
    // Kept, each round would hold at least its 32 KiB of arguments: over 150 MB for these rounds.
    expect(mb(rss.peak - baseline)).toBeLessThan(64);
    expect(mb(rss.last - half)).toBeLessThan(32);
    process.stderr.write(
      `[attack-mrtr] ${ROUNDS} unanswered rounds (32 KiB arguments each) in ${took} ms: RSS ${mb(baseline)} MB before, ${mb(half)} MB halfway, peak ${mb(rss.peak)} MB, ${mb(rss.last)} MB after (${rss.count} samples)\n`,
    );
    // Still answers, a whole round trip included.
    const state = await started(READ, "tools/call", "mrtr_confirm", { action: "after" });
    const done = await modern(server, READ, "tools/call", {
      name: "mrtr_confirm",
      arguments: { action: "after" },
      inputResponses: YES,
      requestState: state,
    });
    expect(resultOf(done), done.text).toMatchObject({ resultType: "complete", structuredContent: { confirmed: true } });
    await legitimateCall(server.url, READ);
  });
});
