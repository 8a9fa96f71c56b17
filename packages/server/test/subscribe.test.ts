import { type McpError, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { captureLogger } from "@toolshed/test-support";
import { expect, it } from "vitest";
import { connectInMemory, createLogger, createServer } from "../src/index.js";
import { notesPack } from "./fixtures.js";

it("resources/subscribe: subscribers hear of updates until they unsubscribe; unknown URIs are -32002", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    packs: [notesPack],
    logger: captureLogger(createLogger).logger,
  });
  const client = await connectInMemory(server);
  const other = await connectInMemory(server);
  expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true });
  const heard: string[] = [];
  const heardByOther: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    heard.push(n.params.uri);
  });
  other.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    heardByOther.push(n.params.uri);
  });
  await client.subscribeResource({ uri: "note://groceries" });
  await server.notifyResourceUpdated("note://groceries");
  await server.notifyResourceUpdated("note://todo");
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(heard).toEqual(["note://groceries"]);
  expect(heardByOther).toEqual([]);
  await client.unsubscribeResource({ uri: "note://groceries" });
  await server.notifyResourceUpdated("note://groceries");
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(heard).toEqual(["note://groceries"]);
  const error = (await client.subscribeResource({ uri: "wiki://x" }).catch((e: unknown) => e)) as McpError;
  expect(error.code).toBe(-32002);
  expect(error.message).toContain("Resource not found: wiki://x");
  await client.close();
  await other.close();
  await server.close();
});
