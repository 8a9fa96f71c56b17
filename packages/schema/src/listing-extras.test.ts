import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePrompt } from "./prompt.js";
import { defineResource, defineResourceTemplate } from "./resource.js";
import { defineTool } from "./tool.js";

// Icons and _meta of definitions: published in their list entries, checked when they are made (C13).

const ICON = {
  src: "https://example.com/notes.png",
  mimeType: "image/png",
  sizes: ["48x48", "96x96"],
  theme: "light" as const,
};
const SVG = { src: "data:image/svg+xml;base64,PHN2Zy8+", sizes: ["any"] };

const tool = (extras: Record<string, unknown>) =>
  defineTool({ name: "t", description: "T", input: z.object({}), handler: () => "x", ...extras });

describe("icons and _meta", () => {
  it("are published in a tool's list entry, as copies", () => {
    const icons = [ICON, SVG];
    const meta = { "com.example/team": "notes", version: 2 };
    const t = tool({ icons, _meta: meta });
    icons.push({ src: "https://example.com/late.png" } as never);
    expect(t.listing).toEqual({
      name: "t",
      description: "T",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      icons: [ICON, SVG],
      _meta: { "com.example/team": "notes", version: 2 },
    });
    expect(t.icons).toEqual([ICON, SVG]);
    expect(tool({}).listing).not.toHaveProperty("icons");
  });

  it("are kept on prompts, resources and templates for their list entries", () => {
    const extras = { icons: [ICON], _meta: { "com.example/kind": "doc" } };
    const prompt = definePrompt({ name: "p", description: "P", args: z.object({}), render: () => "x", ...extras });
    const resource = defineResource({
      uri: "notes://index",
      name: "index",
      description: "I",
      read: () => "x",
      ...extras,
    });
    const template = defineResourceTemplate({
      uriTemplate: "notes://{id}",
      name: "note",
      description: "N",
      params: z.object({ id: z.string().describe("Id") }),
      read: () => "x",
      ...extras,
    });
    for (const d of [prompt, resource, template]) {
      expect(d.icons).toEqual([ICON]);
      expect(d._meta).toEqual({ "com.example/kind": "doc" });
    }
  });

  it("say what would work when they are wrong", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ icons: [{ src: "notes.png" }] }, 'icons[0] src must be a URL (https://…) or a data: URI (got "notes.png")'],
      [
        { icons: [{ src: "ftp://example.com/a.png" }] },
        "icons[0] src must be an https:, http: or data: URI (got ftp:)",
      ],
      [
        { icons: [{ src: "data:image/png,raw" }] },
        "icons[0] src as a data: URI must hold Base64 image data (data:image/png;base64,…)",
      ],
      [
        { icons: [{ src: ICON.src, sizes: ["48"] }] },
        'icons[0] sizes must be a list of "WxH" (such as "48x48") or "any" (got ["48"])',
      ],
      [{ icons: [{ src: ICON.src, theme: "blue" }] }, 'icons[0] theme must be "light" or "dark" (got "blue")'],
      [
        { icons: [{ src: ICON.src, alt: "x" }] },
        "icons[0] has unknown keys alt; an icon has src, mimeType, sizes and theme",
      ],
      [{ icons: ICON }, "icons must be a list of at most 16 icons ({ src, mimeType?, sizes?, theme? })"],
      [
        { _meta: { "io.modelcontextprotocol/x": 1 } },
        '_meta key "io.modelcontextprotocol/x": its prefix is reserved for MCP (second label modelcontextprotocol or mcp); use your own, such as com.example/',
      ],
      [
        { _meta: { "com.mcp.tools/x": 1 } },
        '_meta key "com.mcp.tools/x": its prefix is reserved for MCP (second label modelcontextprotocol or mcp); use your own, such as com.example/',
      ],
      [
        { _meta: { "-bad": 1 } },
        '_meta key "-bad": its name must start and end with a letter or digit (letters, digits, -, _ and . inside)',
      ],
      [{ _meta: [] }, "_meta must be an object of metadata keys"],
    ];
    for (const [extras, message] of cases) expect(() => tool(extras)).toThrow(`Tool "t": ${message} [C13]`);
    // Not reserved: the second label is "example".
    expect(tool({ _meta: { "com.example.mcp/x": 1 } }).listing._meta).toEqual({ "com.example.mcp/x": 1 });
  });
});
