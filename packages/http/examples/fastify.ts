import { createHttpApp, type HttpAppOptions } from "@toolshed/http";
import Fastify from "fastify";
import { type Started, textPack } from "./pack.js";

/**
 * A Fastify 5 app that serves the pack at /mcp. The route lives in a plugin of its own whose one
 * content parser leaves the body unread, so the endpoint reads it (with its own size limit and
 * JSON-RPC errors); the app's other routes keep Fastify's parsers. `reply.hijack()` hands the
 * response to the endpoint.
 */
export async function startFastify(port = 0, options: Omit<HttpAppOptions, "packs"> = {}): Promise<Started> {
  const http = createHttpApp({ packs: [textPack], ...options });
  const app = Fastify();
  app.get("/hello", async () => ({ hello: "world" }));
  await app.register(async (mcp) => {
    mcp.removeAllContentTypeParsers();
    mcp.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
    mcp.all("/mcp", (request, reply) => {
      reply.hijack();
      http.nodeListener(request.raw, reply.raw);
    });
  });

  const address = await app.listen({ port, host: "127.0.0.1" });
  return {
    url: `${address}/mcp`,
    async close() {
      await http.close();
      await app.close();
    },
  };
}
