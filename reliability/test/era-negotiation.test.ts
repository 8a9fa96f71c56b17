// A client that speaks both eras and lets the server decide (`versionNegotiation: auto`) lands on
// 2026-07-28 against both Toolshed servers; a 2025-only client still gets 2025.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { type RunningHttpServer, startHttpServer } from "@toolshed/http-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STDIO_CLI } from "./support/paths.js";

const info = { name: "negotiating-client", version: "1.0.0" };
let http: RunningHttpServer;

beforeAll(async () => {
  http = await startHttpServer({ host: "127.0.0.1", port: 0, db: ":memory:", demo: true, logLevel: "fatal" });
});
afterAll(async () => {
  await http?.close();
});

const stdio = () =>
  new StdioClientTransport({
    command: process.execPath,
    args: [STDIO_CLI, "--db", ":memory:", "--demo"],
    env: { PATH: process.env.PATH ?? "", TOOLSHED_LOG_LEVEL: "warn" },
    stderr: "ignore",
  });

describe.each([
  ["HTTP", () => new StreamableHTTPClientTransport(new URL(http.url))],
  ["stdio", stdio],
])("the SDK 2.x client over %s", (_name, transport) => {
  it("in auto mode lands on 2026-07-28 and works", async () => {
    const client = new Client(info, { capabilities: {}, versionNegotiation: { mode: "auto" } });
    await client.connect(transport());
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect(client.getServerVersion()).toMatchObject({ name: "toolshed" });
      const result = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
      expect(result.structuredContent).toMatchObject({ title: "groceries", body: "milk, eggs" });
    } finally {
      await client.close();
    }
  });

  it("in its default (2025) mode still gets 2025-11-25", async () => {
    const client = new Client(info, { capabilities: {} });
    await client.connect(transport());
    try {
      expect(client.getProtocolEra()).toBe("legacy");
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      const result = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
      expect(result.structuredContent).toMatchObject({ title: "groceries" });
    } finally {
      await client.close();
    }
  });
});
