import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import { crmPack, SqliteCrmStore, seedDemo, withFaults } from "@toolshed/crm";
import { ERROR_META_KEY } from "@toolshed/errors";
import { createHttpApp } from "@toolshed/http";
import { createLogger, createServer, StdioTransport } from "@toolshed/server";
import { leaksIn, responseProblems } from "@toolshed/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { announceFuzz, FUZZ_SEED, fuzzRuns, fuzzTimeoutMs } from "./support/fuzz-settings.js";
import { MCP_HEADERS, readAnswer } from "./support/http-child.js";
import { tempDir } from "./support/temp-db.js";

const SECRET = `sk_live_${randomBytes(12).toString("hex")}`;
const RUNS = fuzzRuns(0.06); // per transport

/** Store failures that carry the secret in every place an error can hold text. */
const FAILURES: Record<string, () => unknown> = {
  message: () => new Error(`connect to crm-db failed: password=${SECRET}`),
  busy: () => Object.assign(new Error(`SQLITE_BUSY: database is locked (${SECRET})`), { code: "SQLITE_BUSY" }),
  reset: () => Object.assign(new Error(`read ECONNRESET ${SECRET}`), { code: "ECONNRESET" }),
  http503: () => Object.assign(new Error(`upstream said ${SECRET}`), { status: 503, headers: { "retry-after": "2" } }),
  http404: () => Object.assign(new Error("upstream"), { response: { status: 404, body: SECRET } }),
  http500: () => Object.assign(new Error(`HTTP 500 ${SECRET}`), { statusCode: 500, body: { token: SECRET } }),
  cause: () => new Error("wrapped", { cause: new Error(`inner ${SECRET}`) }),
  aggregate: () => new AggregateError([new Error(SECRET)], `several failed: ${SECRET}`),
  abort: () => Object.assign(new Error(`aborted ${SECRET}`), { name: "AbortError" }),
  typeError: () => new TypeError(`Cannot read properties of undefined (reading '${SECRET}')`),
  stack: () =>
    Object.assign(new Error("no message"), {
      stack: `Error: x\n    at ${SECRET} (/work/main/packages/crm/src/x.ts:1:1)`,
    }),
  string: () => SECRET,
  object: () => ({ message: SECRET, code: 42 }),
  pgUnavailable: () => Object.assign(new Error(`terminating connection ${SECRET}`), { code: "57P01" }),
};

const CALLS: Array<{ method: string; params: object }> = [
  { method: "tools/call", params: { name: "crm_search_accounts", arguments: { query: "acme" } } },
  { method: "tools/call", params: { name: "crm_get_account", arguments: { account_id: "acc_1001" } } },
  { method: "tools/call", params: { name: "crm_get_account", arguments: { account_id: "acc_1O01" } } },
  {
    method: "tools/call",
    params: { name: "crm_create_account", arguments: { name: "Secretive", tier: "growth", arr: 5 } },
  },
  {
    method: "tools/call",
    params: { name: "crm_bulk_update_tier", arguments: { account_ids: ["acc_1001", "acc_1002"], new_tier: "growth" } },
  },
  { method: "resources/read", params: { uri: "crm://accounts/acc_1001" } },
  { method: "resources/list", params: {} },
  { method: "prompts/get", params: { name: "account_brief", arguments: { account_id: "acc_1001" } } },
  {
    method: "completion/complete",
    params: {
      ref: { type: "ref/resource", uri: "crm://accounts/{account_id}" },
      argument: { name: "account_id", value: "acc" },
    },
  },
];

type Answer = {
  id?: unknown;
  error?: { message: string };
  result?: {
    isError?: boolean;
    content?: Array<{ text?: string }>;
    _meta?: Record<string, { kind: string; ref?: string }>;
  };
};

describe("fuzzing store failures that carry a secret (CRM withFaults)", () => {
  const temp = tempDir("secrets");
  const logs = { text: "" };
  const logStream = new PassThrough().on("data", (chunk: Buffer) => {
    logs.text += chunk.toString("utf8");
  });
  const logger = createLogger({ level: "info", destination: logStream });
  let failure: (() => unknown) | undefined;
  let sendHttp: (body: string) => Promise<{ answers: unknown[]; raw: string }>;
  let sendStdio: (body: string, id: number) => Promise<{ answers: unknown[]; raw: string }>;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    const inner = SqliteCrmStore.open(temp.file("crm.db"));
    await seedDemo(inner);
    // Faults are decided per call, so some calls of one request succeed and others fail.
    const store = withFaults(inner, {
      throwError: () => {
        const made = failure?.();
        if (made === undefined) return undefined;
        if (made instanceof Error) return made;
        // withFaults throws Errors; a thrown non-Error is wrapped the way a careless driver would.
        return Object.assign(new Error("non-error thrown"), { cause: made });
      },
    });
    const pack = crmPack({ store, timeoutMs: 5000 });

    const http = createHttpApp({ packs: [pack], logger, rateLimit: 0 });
    closers.push(() => http.close());
    sendHttp = async (body) => {
      const answer = await readAnswer(
        await http.fetch(new Request("http://127.0.0.1/mcp", { method: "POST", headers: MCP_HEADERS, body })),
      );
      return { answers: answer.messages, raw: `${answer.status} ${answer.text}` };
    };

    const server = createServer({ name: "secrets", version: "1.0.0", packs: [pack], logger });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const pending = new Map<number, (line: string) => void>();
    let buffer = "";
    stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const id = (JSON.parse(line) as { id?: number }).id;
        if (typeof id === "number") pending.get(id)?.(line);
      }
    });
    await server.connect(new StdioTransport({ stdin, stdout }));
    closers.push(() => server.close());
    sendStdio = (body, id) =>
      new Promise((resolve) => {
        pending.set(id, (line) => resolve({ answers: [JSON.parse(line)], raw: line }));
        stdin.write(`${body}\n`);
      });
    closers.push(() => inner.close());
  });

  afterAll(async () => {
    for (const close of closers) await close();
    temp.remove();
  });

  it(
    `never lets a store secret, a stack or a path reach a client, over HTTP and stdio (${2 * RUNS} calls)`,
    async () => {
      announceFuzz("store secrets over HTTP and stdio", 2 * RUNS);
      let id = 0;
      let internal = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...CALLS),
          fc.option(fc.constantFrom(...Object.keys(FAILURES)), { freq: 6 }),
          fc.constantFrom("http", "stdio"),
          async (call, failureName, transport) => {
            failure = failureName === null ? undefined : FAILURES[failureName];
            const n = ++id;
            const body = JSON.stringify({ jsonrpc: "2.0", id: n, ...call });
            const { answers, raw } = transport === "http" ? await sendHttp(body) : await sendStdio(body, n);
            const problems = [...leaksIn(raw, body, [SECRET])];
            if (answers.length !== 1) problems.push(`expected one answer, got ${answers.length}`);
            const answer = answers[0] as Answer;
            problems.push(...responseProblems(answer));
            if (answer?.id !== n) problems.push(`answer id ${JSON.stringify(answer?.id)}`);
            const meta = answer?.result?._meta?.[ERROR_META_KEY];
            if (meta?.kind === "internal") {
              internal++;
              const text = answer.result?.content?.[0]?.text ?? "";
              // A batch (C11) names a ref per failed item; anything else is the C7 text with one ref.
              const batch = text.includes("items failed");
              if (!batch && !/^Error executing tool \S+ \(ref [0-9a-f]+\)$/.test(text))
                problems.push(`C7 text ${JSON.stringify(text)}`);
              const refs = batch ? [...text.matchAll(/ref ([0-9a-f]+)/g)].map((m) => m[1]) : [meta.ref];
              for (const ref of refs)
                if (!ref || !logs.text.includes(ref)) problems.push(`ref ${ref} is not in the server log`);
            }
            if (problems.length > 0)
              throw new Error(
                `${transport} ${call.method} with failure ${failureName}: ${raw.slice(0, 400)}\n- ${problems.join("\n- ")}`,
              );
          },
        ),
        { numRuns: 2 * RUNS, seed: FUZZ_SEED, endOnFailure: true },
      );
      failure = undefined;
      // The secrets were there to leak: the server logged them (on its own log, not to the client).
      expect(logs.text).toContain(SECRET);
      expect(internal).toBeGreaterThan(0);
      process.stderr.write(`[fuzz] store secrets: ${id} calls, ${internal} masked internal errors\n`);
    },
    fuzzTimeoutMs(2 * RUNS),
  );
});
