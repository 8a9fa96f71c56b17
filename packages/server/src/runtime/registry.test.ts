import { definePack, definePrompt, defineResource, defineResourceTemplate, defineTool } from "@toolshed/schema";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Registry } from "./registry.js";

const tool = (name: string, readOnly: boolean, requiredScopes?: string[]) =>
  defineTool({
    name,
    description: `Tool ${name}.`,
    input: z.object({}),
    ...(readOnly ? { annotations: { readOnlyHint: true } } : {}),
    ...(requiredScopes ? { requiredScopes } : {}),
    handler: () => name,
  });

const notes = definePack({
  name: "notes",
  requiredScopes: ["notes:use"],
  tools: [tool("get_note", true), tool("add_note", false, ["notes:write"])],
  resources: [
    defineResource({ uri: "note://index", name: "index", description: "All titles", read: () => "" }),
    defineResourceTemplate({
      uriTemplate: "note://{title}",
      name: "note",
      description: "One note",
      params: z.object({ title: z.string().describe("Title") }),
      read: ({ title }) => title,
    }),
  ],
  prompts: [
    definePrompt({
      name: "summarize",
      title: "Summarize",
      description: "Sums up",
      args: z.object({}),
      render: () => "",
    }),
  ],
});
const crm = definePack({ name: "crm", tools: [tool("crm_get", true)] });

describe("Registry", () => {
  it("holds every definition by name (resources by URI) and the pack of each", () => {
    const registry = new Registry([notes, crm]);
    expect([...registry.tools.keys()]).toEqual(["get_note", "add_note", "crm_get"]);
    expect([...registry.resources.keys()]).toEqual(["note://index"]);
    expect([...registry.templates.keys()]).toEqual(["note"]);
    expect(registry.packOf(registry.tools.get("crm_get") as object)).toBe("crm");
    expect(registry.packOf(registry.templates.get("note") as object)).toBe("notes");
    expect(registry.packOf({})).toBe("");
    expect(registry.templateByUri("note://{title}")?.name).toBe("note");
    expect(registry.templateByUri("note")).toBeUndefined();
  });

  it("gives each definition its pack's scopes and its own, and publishes every scope once, sorted", () => {
    const registry = new Registry([notes, crm]);
    const addNote = registry.targets.get(registry.tools.get("add_note") as object);
    expect(addNote).toMatchObject({ kind: "tool", name: "add_note", requiredScopes: ["notes:use", "notes:write"] });
    expect(registry.targets.get(registry.tools.get("crm_get") as object)?.requiredScopes).toEqual([]);
    expect(registry.scopesSupported).toEqual(["notes:use", "notes:write", "tools:read", "tools:write"]);
  });

  it("precomputes the caller-independent lists: read-only tools apart, prompts and templates as listed", () => {
    const registry = new Registry([notes, crm]);
    expect(registry.toolListings.all.map((t) => t.name)).toEqual(["get_note", "add_note", "crm_get"]);
    expect(registry.toolListings.readOnly.map((t) => t.name)).toEqual(["get_note", "crm_get"]);
    expect(registry.listedTools.readOnly.map((t) => t.name)).toEqual(["get_note", "crm_get"]);
    expect(registry.promptListings).toEqual([
      { name: "summarize", title: "Summarize", description: "Sums up", arguments: [] },
    ]);
    expect(registry.templateListings).toEqual([
      { uriTemplate: "note://{title}", name: "note", description: "One note" },
    ]);
  });

  it("refuses two packs that define the same tool name", () => {
    const twin = definePack({ name: "twin", tools: [tool("get_note", true)] });
    expect(() => new Registry([notes, twin])).toThrow(/get_note/);
  });
});
