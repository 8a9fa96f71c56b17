import type { AddressInfo } from "node:net";
import { createHttpApp, type HttpAppOptions } from "@toolshed/http";
import express from "express";
import { type Started, textPack } from "./pack.js";

/**
 * An Express 5 app that serves the pack at /mcp next to its own routes. `express.json()` in front
 * is fine: the endpoint takes the body the parser has read. Mounted before the parser instead,
 * the endpoint reads the body itself and answers bad JSON and large bodies with its own errors.
 */
export async function startExpress(port = 0, options: Omit<HttpAppOptions, "packs"> = {}): Promise<Started> {
  const http = createHttpApp({ packs: [textPack], ...options });
  const app = express();
  app.use(express.json());
  app.get("/hello", (_req, res) => {
    res.json({ hello: "world" });
  });
  app.all("/mcp", http.nodeListener);

  const server = app.listen(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      // Calls in flight finish first (up to 10 s by default), then the connections close.
      await http.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
