// An ordinary MCP server written with the official SDK's McpServer (1.x), the way its README
// shows: zod shapes for input, an output schema where the result is structured, annotations.
// Audited in docs/audit.md: node packages/audit/dist/cli.js -- node packages/audit/examples/sdk-server.mjs
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "weather-demo", version: "1.0.0" });

server.registerTool(
  "echo",
  {
    title: "Echo",
    description: "Echo back the message you send, to test the connection",
    inputSchema: { message: z.string().describe("Text to echo back") },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ message }) => ({ content: [{ type: "text", text: message }] }),
);

server.registerTool(
  "add",
  {
    title: "Addition",
    description: "Add two numbers and return their sum",
    inputSchema: { a: z.number().describe("First number"), b: z.number().describe("Second number") },
    outputSchema: { sum: z.number() },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ a, b }) => {
    const output = { sum: a + b };
    return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
  },
);

const FORECASTS = { paris: { temperature: 18, conditions: "cloudy" }, tokyo: { temperature: 24, conditions: "sunny" } };

server.registerTool(
  "get_weather",
  {
    title: "Current weather",
    description: "Get the current weather for a city (demo data: Paris and Tokyo)",
    inputSchema: { city: z.string().describe("City name, such as Paris") },
    outputSchema: { temperature: z.number(), conditions: z.string() },
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  async ({ city }) => {
    const forecast = FORECASTS[city.toLowerCase()];
    if (!forecast)
      return { content: [{ type: "text", text: `No weather for ${city}. Try Paris or Tokyo.` }], isError: true };
    return { content: [{ type: "text", text: JSON.stringify(forecast) }], structuredContent: forecast };
  },
);

await server.connect(new StdioServerTransport());
