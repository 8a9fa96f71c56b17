import type { AddressInfo } from "node:net";
import { type HttpBindings, type ServerType, serve } from "@hono/node-server";
import { createHttpApp, type HttpAppOptions } from "@toolshed/http";
import { Hono } from "hono";
import { type Started, textPack } from "./pack.js";

/**
 * A Hono app that serves the pack at /mcp through the Fetch handler. On @hono/node-server, `c.env`
 * carries the client's socket, so rate limits count per address.
 */
export async function startHono(port = 0, options: Omit<HttpAppOptions, "packs"> = {}): Promise<Started> {
  const http = createHttpApp({ packs: [textPack], ...options });
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.get("/hello", (c) => c.json({ hello: "world" }));
  app.all("/mcp", (c) => http.fetch(c.req.raw, c.env));
  return listening(serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }), () => http.close());
}

/**
 * The Fetch handler alone, `(request: Request) => Promise<Response>`: what Bun.serve, Deno.serve
 * and a worker's `fetch` take. It answers /mcp, /healthz and /readyz, and 404 elsewhere.
 */
export async function startFetchHandler(port = 0, options: Omit<HttpAppOptions, "packs"> = {}): Promise<Started> {
  const http = createHttpApp({ packs: [textPack], ...options });
  const handler = (request: Request): Promise<Response> => http.fetch(request);
  // Here it runs on Node through @hono/node-server; Bun.serve({ fetch: handler }) works the same.
  return listening(serve({ fetch: handler, port, hostname: "127.0.0.1" }), () => http.close());
}

async function listening(server: ServerType, closeApp: () => Promise<void>): Promise<Started> {
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      await closeApp();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
