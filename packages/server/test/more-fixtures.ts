// Packs and helpers for the resources, prompts, completion, context, stdio and timeout tests.

import { PassThrough } from "node:stream";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { InvalidArgumentsError, NotFoundError, ToolError } from "@toolshed/errors";
import { definePack, definePrompt, defineResource, defineResourceTemplate, defineTool } from "@toolshed/schema";
import { z } from "zod";
import type { ToolshedServer } from "../src/index.js";

export const META = "toolshed.dev/error";

/** A promise with its resolve function outside, to let a test wait for a handler. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** 150 ticket numbers, 100-249: more than one completion answer may hold (100). */
export const TICKET_IDS = Array.from({ length: 150 }, (_, i) => String(100 + i));

/** Static resources and a template, with every way a read can end. */
export const docsPack = definePack({
  name: "docs",
  resources: [
    defineResource({
      uri: "config://app",
      name: "app_config",
      title: "App config",
      description: "The app's settings as JSON",
      mimeType: "application/json",
      read: () => JSON.stringify({ theme: "dark" }),
    }),
    defineResource({
      uri: "logo://small",
      name: "logo",
      description: "A tiny PNG",
      mimeType: "image/png",
      read: () => ({ blob: "iVBORw0KGgo=" }),
    }),
    defineResource({
      uri: "multi://parts",
      name: "parts",
      description: "A document in two parts",
      read: () => [{ text: "part one" }, { uri: "multi://parts#2", mimeType: "text/plain", text: "part two" }],
    }),
    defineResource({
      uri: "gone://doc",
      name: "gone",
      description: "A document that was deleted",
      read: () => {
        throw new NotFoundError("Document 'doc' was deleted; see resources/list for what exists");
      },
    }),
    defineResource({
      uri: "secret://boom",
      name: "boom",
      description: "Fails with an unexpected exception",
      read: () => {
        throw new Error("db password hunter2 at /srv/app/secret.ts:12");
      },
    }),
    defineResource({
      uri: "busy://db",
      name: "busy",
      description: "Fails with a retryable tool error",
      read: () => {
        throw new ToolError("the database is busy", { code: "unavailable" });
      },
    }),
    defineResource({
      uri: "picky://doc",
      name: "picky",
      description: "Fails with invalid arguments",
      read: () => {
        throw new InvalidArgumentsError("this document needs a version; use picky://doc?v=2");
      },
    }),
    defineResourceTemplate({
      uriTemplate: "ticket://{id}",
      name: "ticket",
      title: "Ticket",
      description: "One support ticket as JSON",
      mimeType: "application/json",
      params: z.object({ id: z.coerce.number().int().min(100).describe("Ticket number") }),
      list: () => [
        { uri: "ticket://101", name: "ticket 101" },
        { uri: "ticket://102", name: "ticket 102", mimeType: "text/plain" },
      ],
      complete: { id: (value) => TICKET_IDS.filter((id) => id.startsWith(value)) },
      read: ({ id }, ctx) => JSON.stringify({ id, uri: ctx.uri, client: ctx.authInfo?.clientId ?? null }),
    }),
  ],
});

/** Prompts that render a string, messages and a full result; completers that read context. */
export const promptsPack = definePack({
  name: "prompts",
  prompts: [
    definePrompt({
      name: "review_code",
      title: "Review code",
      description: "Ask the model to review code in one language and framework",
      args: z.object({
        language: z.enum(["ts", "py"]).describe("Language of the code"),
        framework: z.string().min(2).describe("Framework the code uses"),
        depth: z.string().optional().describe("How deep to go: brief or thorough"),
      }),
      complete: {
        language: (value) => ["ts", "py"].filter((l) => l.startsWith(value)),
        framework: (value, ctx) =>
          (ctx.arguments.language === "py" ? ["django", "fastapi", "flask"] : ["express", "fastify", "hono"]).filter(
            (f) => f.startsWith(value),
          ),
      },
      render: ({ language, framework, depth }) => [
        { role: "assistant", content: { type: "text", text: `I review ${language} code that uses ${framework}.` } },
        { role: "user", content: { type: "text", text: `Review this code (${depth ?? "brief"}).` } },
      ],
    }),
    definePrompt({
      name: "full_prompt",
      description: "Renders a complete prompts/get result",
      args: z.object({}),
      render: () => ({
        description: "A custom description",
        messages: [{ role: "user", content: { type: "text", text: "hi" } }],
      }),
    }),
    definePrompt({
      name: "broken_prompt",
      description: "Fails with an unexpected exception",
      args: z.object({}),
      render: () => {
        throw new Error("prompt store password hunter2");
      },
    }),
  ],
});

/** Records what the context tools saw, for the test to read. */
export class ContextProbe {
  started = deferred();
  aborted = deferred<unknown>();
}

/** Tools that use the request context: cancellation, sampling, elicitation, credentials. */
export function contextPack(probe: ContextProbe) {
  return definePack({
    name: "ctx",
    tools: [
      defineTool({
        name: "wait_for_cancel",
        description: "Waits until the call is aborted.",
        input: z.object({}),
        timeoutMs: 5000,
        handler: (_args, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener("abort", () => {
              probe.aborted.resolve(ctx.signal.reason);
              resolve("aborted");
            });
            probe.started.resolve();
          }),
      }),
      defineTool({
        name: "ask_model",
        description: "Asks the client's model a question.",
        input: z.object({ question: z.string().describe("What to ask") }),
        output: z.string(),
        handler: async ({ question }, ctx) => {
          const answer = await ctx.createMessage({
            messages: [{ role: "user", content: { type: "text", text: question } }],
            maxTokens: 50,
          });
          const content = answer.content as { type: string; text?: string };
          return `${answer.model}: ${content.text ?? ""}`;
        },
      }),
      defineTool({
        name: "ask_user",
        description: "Asks the user for their name.",
        input: z.object({}),
        output: z.string(),
        handler: async (_args, ctx) => {
          const answer = await ctx.elicitInput({
            message: "What is your name?",
            requestedSchema: {
              type: "object",
              properties: { name: { type: "string", description: "Your name" } },
              required: ["name"],
            },
          });
          return answer.action === "accept" ? `hello ${String(answer.content?.name)}` : `no answer (${answer.action})`;
        },
      }),
      defineTool({
        name: "whoami",
        description: "Returns the caller's credentials as the handler sees them.",
        input: z.object({}),
        output: z.object({ clientId: z.string().nullable(), scopes: z.array(z.string()), hasRequestId: z.boolean() }),
        handler: (_args, ctx) => ({
          clientId: ctx.authInfo?.clientId ?? null,
          scopes: ctx.authInfo?.scopes ?? [],
          hasRequestId: ctx.requestId !== undefined,
        }),
      }),
    ],
  });
}

/** Records when the late handlers really end, after their timeouts. */
export class LateProbe {
  finished = deferred<string>();
  threw = deferred<string>();
}

/** Handlers that ignore their signal and end after their timeout. */
export function latePack(probe: LateProbe) {
  return definePack({
    name: "late",
    tools: [
      defineTool({
        name: "ignores_signal",
        description: "Finishes 120 ms after its 30 ms timeout, ignoring the signal.",
        input: z.object({}),
        output: z.string(),
        timeoutMs: 30,
        handler: async () => {
          await sleep(150);
          probe.finished.resolve("finished");
          return "late value";
        },
      }),
      defineTool({
        name: "throws_late",
        description: "Throws 120 ms after its 30 ms timeout.",
        input: z.object({}),
        timeoutMs: 30,
        handler: async () => {
          await sleep(150);
          probe.threw.resolve("threw");
          throw new Error("late failure with secret hunter2");
        },
      }),
      defineTool({
        name: "sleep_ms",
        description: "Sleeps for the given time; has no timeout of its own.",
        input: z.object({ ms: z.number().int().min(0).max(1000).describe("How long to sleep") }),
        output: z.string(),
        handler: async ({ ms }) => {
          await sleep(ms);
          return `slept ${ms} ms`;
        },
      }),
      defineTool({
        name: "rejects_with_reason",
        description: "Rejects with its signal's reason when it times out.",
        input: z.object({}),
        timeoutMs: 30,
        handler: (_args, ctx) =>
          new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
      }),
    ],
  });
}

export interface RawMessage {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** A raw in-memory connection that keeps every message the server sends, in order. */
export async function rawPeer(server: ToolshedServer) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: RawMessage[] = [];
  const waiters: Array<() => void> = [];
  clientSide.onmessage = (message) => {
    received.push(message as unknown as RawMessage);
    for (const w of waiters.splice(0)) w();
  };
  await clientSide.start();
  await server.connect(serverSide);
  const responsesTo = (id: string | number) => received.filter((m) => m.id === id && !("method" in m));
  return {
    received,
    responsesTo,
    send: (message: object) => clientSide.send(message as JSONRPCMessage),
    /** Waits for the first response with this id. */
    async response(id: string | number): Promise<RawMessage> {
      for (;;) {
        const [found] = responsesTo(id);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    close: () => clientSide.close(),
  };
}

/** Streams for a stdio transport, and the lines the server wrote. */
export function stdioPipes() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let raw = "";
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  stdout.on("data", (chunk: Buffer) => {
    raw += chunk.toString("utf8");
    const parts = raw.split("\n");
    const done = parts.slice(0, -1);
    lines.length = 0;
    lines.push(...done);
    for (const w of waiters.splice(0)) w();
  });
  return {
    stdin,
    stdout,
    lines,
    /** Everything written to stdout so far. */
    written: () => raw,
    /** Writes text to the server's stdin, as one chunk. */
    write: (chunk: string | Buffer) =>
      new Promise<void>((resolve) => {
        stdin.write(chunk, () => resolve());
      }),
    /** Waits until at least n lines were written, then returns them parsed. */
    async read(n: number, timeoutMs = 2000): Promise<RawMessage[]> {
      const deadline = Date.now() + timeoutMs;
      while (lines.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} lines, got ${lines.length}: ${raw}`);
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), sleep(20)]);
      }
      return lines.map((l) => JSON.parse(l) as RawMessage);
    },
  };
}

/** Tools whose handlers find what the schema cannot: a validation-class ToolError. */
export const refusingPack = definePack({
  name: "refusing",
  tools: [
    defineTool({
      name: "plan_trip",
      description: "Plans a trip between two different cities.",
      input: z.object({
        from: z.string().describe("City to leave from"),
        to: z.string().describe("City to go to"),
      }),
      output: z.object({ route: z.string() }),
      handler: ({ from, to }) => {
        if (from === to) {
          throw new InvalidArgumentsError(`to "${to}" is the same as from; choose another city`, [
            { path: "to", message: "must differ from from" },
          ]);
        }
        return { route: `${from}-${to}` };
      },
    }),
    defineTool({
      name: "next_page",
      description: "Reads the page a cursor points at.",
      input: z.object({ cursor: z.string().describe("next_cursor of the previous page") }),
      handler: () => {
        throw new ToolError("cursor is not valid; pass next_cursor unchanged, or omit it", {
          code: "invalid_arguments",
        });
      },
    }),
  ],
});

/** What the client sees of refusingPack's validation errors (C6). */
export const TRIP = 'Invalid arguments for tool plan_trip:\nto "Oslo" is the same as from; choose another city';
export const TRIP_META = {
  kind: "validation",
  code: "invalid_arguments",
  retryable: false,
  issues: [{ path: "to", message: "must differ from from" }],
};
export const PAGE =
  "Invalid arguments for tool next_page:\ncursor is not valid; pass next_cursor unchanged, or omit it";
