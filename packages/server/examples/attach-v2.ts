import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { definePack, defineTool } from "@toolshed/schema";
import { attachPack } from "@toolshed/server";
import { z } from "zod";

const deploy = defineTool({
  name: "deploy",
  description: "Deploy the app to an environment once the user confirms.",
  input: z.object({ env: z.enum(["staging", "prod"]).describe("Where to deploy") }),
  output: z.string(),
  handler: async ({ env }, ctx) => {
    const answer = await ctx.elicitInput({
      message: `Deploy to ${env}?`,
      requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
    });
    return answer.action === "accept" && answer.content?.confirm === true ? `deployed to ${env}` : "not deployed";
  },
});
const pack = definePack({ name: "deploy", tools: [deploy] });

// Your own SDK v2 McpServer, made per request by createMcpHandler, which serves both protocol eras.
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "deployer", version: "1.0.0" });
  attachPack(server, pack);
  return server;
});

// A v2 client on 2026-07-28; `fetch` hands its requests to the handler (in a real server, an HTTP route does).
const client = new Client(
  { name: "example", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { confirm: true } }));
await client.connect(
  new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    fetch: (url, init) => handler.fetch(new Request(url, init)),
  }),
);

const deployed = await client.callTool({ name: "deploy", arguments: { env: "prod" } });
// deployed.structuredContent: { result: "deployed to prod" }; the question went out as input_required

const invalid = await client.callTool({ name: "deploy", arguments: { env: "dev" } });
// invalid.isError: true, text:
// 'Invalid arguments for tool deploy:\nenv: must be one of "staging", "prod" (got "dev")'

await client.close();
await handler.close();

export { deployed, invalid };
