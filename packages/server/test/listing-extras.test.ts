// Icons and _meta of tools, prompts, resources and templates as a real client lists them, in the
// 2025 era (SDK client) and as raw 2026-07-28 requests.
import { definePack, definePrompt, defineResource, defineResourceTemplate, defineTool } from "@toolshed/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectInMemory, createServer, type ToolshedServer } from "../src/index.js";
import { rawConnection } from "./raw.js";

const ICONS = [
  { src: "https://example.com/notes.png", mimeType: "image/png", sizes: ["48x48"], theme: "light" as const },
  { src: "data:image/svg+xml;base64,PHN2Zy8+", sizes: ["any"] },
];
const META = { "com.example/team": "notes" };
const extras = { icons: ICONS, _meta: META };

const pack = definePack({
  name: "notes",
  tools: [
    defineTool({
      name: "list_notes",
      description: "Lists notes",
      input: z.object({}),
      handler: () => "none",
      ...extras,
    }),
  ],
  prompts: [
    definePrompt({
      name: "summarize",
      description: "Summarizes",
      args: z.object({}),
      render: () => "Sum up",
      ...extras,
    }),
  ],
  resources: [
    defineResource({ uri: "notes://index", name: "index", description: "Index", read: () => "x", ...extras }),
    defineResourceTemplate({
      uriTemplate: "notes://{id}",
      name: "note",
      description: "One note",
      params: z.object({ id: z.string().describe("Note id") }),
      read: () => "x",
      ...extras,
    }),
  ],
});

let server: ToolshedServer;
beforeAll(() => {
  server = createServer({ name: "extras", version: "1.0.0", packs: [pack] });
});
afterAll(() => server.close());

const listed = expect.objectContaining({ icons: ICONS, _meta: META });

describe("icons and _meta in list entries", () => {
  it("2025 era: a real SDK client lists them on every kind", async () => {
    const client = await connectInMemory(server);
    expect((await client.listTools()).tools).toEqual([listed]);
    expect((await client.listPrompts()).prompts).toEqual([listed]);
    expect((await client.listResources()).resources).toEqual([listed]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([listed]);
    await client.close();
  });

  it("2026-07-28: the same entries", async () => {
    const raw = await rawConnection(server);
    const _meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    for (const [method, key] of [
      ["tools/list", "tools"],
      ["prompts/list", "prompts"],
      ["resources/list", "resources"],
      ["resources/templates/list", "resourceTemplates"],
    ] as const) {
      const answer = await raw.request(method, { _meta });
      expect(answer.result?.[key], method).toEqual([listed]);
    }
    await raw.close();
  });
});
