// subscriptions/listen as an attacker uses it (issue 36): many streams from one token, a stream
// never read, and change events about resources the listener may not see.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { definePack, defineResourceTemplate, defineTool } from "@toolshed/schema";
import { LocalChangeBus } from "@toolshed/server";
import { connect, MODERN_VERSION, modernEnvelope, openStream, silentLogger } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpApp, type HttpApp } from "../src/index.js";

/** A tool of `pack` that says the pack's resource list changed. */
const changer = (name: string) =>
  defineTool({
    name,
    description: `Adds an entry and says the resource list changed (${name}).`,
    input: z.object({}),
    output: z.object({ done: z.boolean() }),
    annotations: { readOnlyHint: true },
    handler: (_args, ctx) => {
      ctx.resourceListChanged?.();
      return { done: true };
    },
  });

const template = (name: string, uriTemplate: string) =>
  defineResourceTemplate({
    name,
    uriTemplate,
    description: `The ${name} entries.`,
    mimeType: "text/plain",
    params: z.object({ id: z.string().describe("Entry id") }),
    read: ({ id }) => `entry ${id}`,
  });

const docs = definePack({ name: "docs", tools: [changer("add_doc")], resources: [template("doc", "docs://{id}")] });
// Hidden from the outsider by canAccess: its tools, its resources and news of them.
const vault = definePack({
  name: "vault",
  tools: [changer("add_secret")],
  // Its entries live under docs://vault/, a prefix a docs reader may watch.
  resources: [template("secret", "docs://vault/{id}")],
});

const TOKENS = {
  insider: { id: "insider", token: "insider-token-0123456789", scopes: ["tools:read"] },
  outsider: { id: "outsider", token: "outsider-token-012345678", scopes: ["tools:read"] },
};
const bearer = (who: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[who].token}` });

const servers: Server[] = [];
const apps: HttpApp[] = [];
const bus = new LocalChangeBus();
let url: string;
let sessionsUrl: string;
let app: HttpApp;

async function serve(sessions: boolean): Promise<{ url: string; app: HttpApp }> {
  const http = createHttpApp({
    packs: [docs, vault],
    logger: silentLogger,
    sessions,
    tokens: Object.values(TOKENS),
    listensPerClient: 3,
    changes: bus,
    canAccess: (auth, target) => !(target.pack.name === "vault" && auth?.clientId === "outsider"),
  });
  const server = createServer(http.nodeListener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apps.push(http);
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, app: http };
}

beforeAll(async () => {
  ({ url, app } = await serve(false));
  ({ url: sessionsUrl } = await serve(true));
});
afterAll(async () => {
  for (const s of servers) s.close();
  await Promise.all(apps.map((a) => a.close({ graceMs: 0 })));
});

const LISTEN_HEADERS = { "mcp-protocol-version": MODERN_VERSION, "mcp-method": "subscriptions/listen" };
const listenBody = (id: string, notifications: Record<string, unknown> = { resourcesListChanged: true }) => ({
  jsonrpc: "2.0",
  id,
  method: "subscriptions/listen",
  params: { _meta: modernEnvelope(), notifications },
});

function listen(who: keyof typeof TOKENS, id: string, notifications?: Record<string, unknown>) {
  return openStream(url, listenBody(id, notifications), { ...LISTEN_HEADERS, ...bearer(who) });
}

async function call(who: keyof typeof TOKENS, id: number, name: string) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_VERSION,
      "mcp-method": "tools/call",
      "mcp-name": name,
      ...bearer(who),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { _meta: modernEnvelope(), name, arguments: {} },
    }),
  });
  return (await res.json()) as { result?: { structuredContent?: unknown }; error?: unknown };
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("subscriptions/listen streams per caller", () => {
  it("one token holds at most its quota of streams: the next is 429 saying what to do; other tokens are not affected", async () => {
    const open = await Promise.all([0, 1, 2].map((i) => listen("outsider", `quota-${i}`)));
    for (const s of open) expect((await s.next()).method).toBe("notifications/subscriptions/acknowledged");

    const refused = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...LISTEN_HEADERS,
        ...bearer("outsider"),
      },
      body: JSON.stringify(listenBody("quota-3")),
    });
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBe("quota-3");
    expect(body.error.code).toBe(-32000);
    expect(body.error.message).toMatch(
      /subscriptions\/listen streams open.*close one, or listen for several resources/,
    );

    // Another caller still listens.
    const other = await listen("insider", "quota-insider");
    expect((await other.next()).method).toBe("notifications/subscriptions/acknowledged");
    other.close();

    // A closed stream gives its slot back.
    open[0]?.close();
    let reopened: Awaited<ReturnType<typeof listen>> | undefined;
    await until(async () => {
      const attempt = await listen("outsider", "quota-again");
      if (attempt.status === 200) reopened = attempt;
      else attempt.close();
      return attempt.status === 200;
    }, "a slot is free again");
    expect((await reopened?.next())?.method).toBe("notifications/subscriptions/acknowledged");
    reopened?.close();
    for (const s of open.slice(1)) s.close();
    await until(() => bus.listeners === 0, "every stream ended");
  });

  it("a stream whose client never reads ends once 1 MiB of notifications wait for it, and stops listening", async () => {
    // The Fetch handler hands the body over only as it is read: nothing here reads it.
    const res = await app.fetch(
      new Request(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...LISTEN_HEADERS,
          ...bearer("insider"),
        },
        body: JSON.stringify(listenBody("unread", { resourceSubscriptions: ["docs://big"] })),
      }),
    );
    expect(res.status).toBe(200);
    await until(() => bus.listeners === 1, "the stream listens");
    const before = process.memoryUsage().heapUsed;
    // About 110 bytes each: 20,000 updates are 2 MB, twice the cap.
    for (let i = 0; i < 20_000 && bus.listeners > 0; i++) bus.publish({ type: "resources/updated", uri: "docs://big" });
    await until(() => bus.listeners === 0, "the unread stream stopped listening");
    // Held at most about the cap; without it every update stays queued.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
    await res.body?.cancel().catch(() => {});
  });
});

describe("change events about what a caller may not see", () => {
  it("2026-07-28: a pack's list change reaches only callers who may see that pack's resources", async () => {
    // A watched marker after the changes shows where each listener's news end.
    const watch = { resourcesListChanged: true, resourceSubscriptions: ["docs://marker"] };
    const insider = await listen("insider", "watch-insider", watch);
    const outsider = await listen("outsider", "watch-outsider", watch);
    expect((await insider.next()).method).toBe("notifications/subscriptions/acknowledged");
    expect((await outsider.next()).method).toBe("notifications/subscriptions/acknowledged");

    expect((await call("insider", 1, "add_secret")).result?.structuredContent).toEqual({ done: true });
    expect((await call("insider", 2, "add_doc")).result?.structuredContent).toEqual({ done: true });
    bus.publish({ type: "resources/updated", uri: "docs://marker" });

    const methods = async (stream: typeof insider) => {
      const seen: string[] = [];
      for (;;) {
        const m = await stream.next();
        seen.push(String(m.method));
        if (m.method === "notifications/resources/updated") return seen;
      }
    };
    const list = "notifications/resources/list_changed";
    const marker = "notifications/resources/updated";
    expect(await methods(insider)).toEqual([list, list, marker]);
    // The vault's change never reached the outsider; the docs change did.
    expect(await methods(outsider)).toEqual([list, marker]);
    // The outsider cannot call the hidden tool either.
    expect(JSON.stringify(await call("outsider", 3, "add_secret"))).toMatch(/Unknown tool/);
    insider.close();
    outsider.close();
  });

  it("2026-07-28: updates under a watched prefix skip resources hidden from the listener", async () => {
    const watch = { resourceSubscriptions: ["docs://vault"] };
    const insider = await listen("insider", "prefix-insider", watch);
    const outsider = await listen("outsider", "prefix-outsider", watch);
    for (const s of [insider, outsider]) {
      expect(await s.next()).toMatchObject({ params: { notifications: { resourceSubscriptions: ["docs://vault"] } } });
    }
    // docs://vault is a doc anyone may read; docs://vault/s1 is a vault entry, hidden from the outsider.
    bus.publish({ type: "resources/updated", uri: "docs://vault/s1" });
    bus.publish({ type: "resources/updated", uri: "docs://vault" });
    expect(await insider.next()).toMatchObject({ params: { uri: "docs://vault/s1" } });
    expect(await insider.next()).toMatchObject({ params: { uri: "docs://vault" } });
    expect(await outsider.next()).toMatchObject({
      method: "notifications/resources/updated",
      params: { uri: "docs://vault" },
    });
    insider.close();
    outsider.close();
  });

  it("2025 sessions: the list change of a hidden pack is not sent to the session's client", async () => {
    const heard: Record<string, string[]> = { insider: [], outsider: [] };
    const clients = await Promise.all(
      (["insider", "outsider"] as const).map(async (who) => {
        const { client } = await connect(sessionsUrl, { token: TOKENS[who].token });
        client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
          heard[who]?.push("list_changed");
        });
        return client;
      }),
    );
    // Both sessions' change listeners are on the bus once each has made a request.
    await Promise.all(clients.map((c) => c.listResources()));
    bus.publish({ type: "resources/list_changed", pack: "vault" });
    bus.publish({ type: "resources/list_changed", pack: "docs" });
    await until(() => heard.insider?.length === 2 && heard.outsider?.length === 1, "the notifications arrived");
    await new Promise((r) => setTimeout(r, 100));
    expect(heard).toEqual({ insider: ["list_changed", "list_changed"], outsider: ["list_changed"] });
    await Promise.all(clients.map((c) => c.close()));
  });
});

describe("listensPerClient", () => {
  it.each([0, -1, 1.5, Number.NaN])("%s is refused when the app is made, saying what works", (value) => {
    expect(() => createHttpApp({ packs: [docs], logger: silentLogger, listensPerClient: value })).toThrow(
      `listensPerClient must be a whole number of at least 1, such as 16 (got ${value})`,
    );
  });
});

describe("subscriptions/listen for tasks (issue 58.5)", () => {
  const job = defineTool({
    name: "job",
    description: "Runs as a task.",
    input: z.object({}),
    annotations: { readOnlyHint: true },
    task: "required",
    handler: () => "done",
  });
  const tasksApp = createHttpApp({
    packs: [definePack({ name: "jobs", tools: [job] })],
    logger: silentLogger,
    tokens: [TOKENS.insider],
    rateLimit: 30,
  });
  afterAll(() => tasksApp.close({ graceMs: 0 }));
  const extension = { extensions: { "io.modelcontextprotocol/tasks": {} } };

  async function listenFor(taskIds: string[]) {
    const res = await tasksApp.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...LISTEN_HEADERS,
          ...bearer("insider"),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: "tasks",
          method: "subscriptions/listen",
          params: { _meta: modernEnvelope(extension), notifications: { taskIds } },
        }),
      }),
    );
    await res.body?.cancel();
    return res.status;
  }

  it("each task id beyond the first is charged to the caller's allowance, as a batch's calls are", async () => {
    // 30 a minute: one listen for 40 ids does not fit; one for 5 does, and takes 5 of it.
    expect(await listenFor(Array.from({ length: 40 }, (_, i) => `t-${i}`))).toBe(429);
    expect(await listenFor(Array.from({ length: 5 }, (_, i) => `t-${i}`))).toBe(200);
    expect(await listenFor(Array.from({ length: 20 }, (_, i) => `t-${i}`))).toBe(200);
    // 1 (the refused POST) + 5 + 20 of 30 taken: a listen for 5 ids needs 5, and 4 are left.
    expect(await listenFor(["a", "b", "c", "d", "e"])).toBe(429);
  });
});
