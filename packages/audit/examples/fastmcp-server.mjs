// An ordinary MCP server written with FastMCP, the way its README shows: a zod object of
// parameters, annotations, a string or JSON text result.
// Audited in docs/audit.md: node packages/audit/dist/cli.js -- node packages/audit/examples/fastmcp-server.mjs
import { FastMCP, UserError } from "fastmcp";
import { z } from "zod";

const server = new FastMCP({ name: "weather-demo", version: "1.0.0" });

server.addTool({
  name: "echo",
  description: "Echo back the message you send, to test the connection",
  parameters: z.object({ message: z.string().describe("Text to echo back") }),
  annotations: { title: "Echo", readOnlyHint: true, openWorldHint: false },
  execute: async ({ message }) => message,
});

server.addTool({
  name: "add",
  description: "Add two numbers and return their sum",
  parameters: z.object({ a: z.number().describe("First number"), b: z.number().describe("Second number") }),
  annotations: { title: "Addition", readOnlyHint: true, openWorldHint: false },
  execute: async ({ a, b }) => String(a + b),
});

const FORECASTS = { paris: { temperature: 18, conditions: "cloudy" }, tokyo: { temperature: 24, conditions: "sunny" } };

server.addTool({
  name: "get_weather",
  description: "Get the current weather for a city (demo data: Paris and Tokyo)",
  parameters: z.object({ city: z.string().describe("City name, such as Paris") }),
  annotations: { title: "Current weather", readOnlyHint: true, openWorldHint: true },
  execute: async ({ city }) => {
    const forecast = FORECASTS[city.toLowerCase()];
    if (!forecast) throw new UserError(`No weather for ${city}. Try Paris or Tokyo.`);
    return JSON.stringify(forecast);
  },
});

server.start({ transportType: "stdio" });
