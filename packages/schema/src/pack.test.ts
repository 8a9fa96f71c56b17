import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definitionError } from "./definition-error.test-helper.js";
import { type AnyTool, checkUniqueNames, definePack, type Pack } from "./pack.js";
import { definePrompt } from "./prompt.js";
import { defineResource, defineResourceTemplate } from "./resource.js";
import { defineTool } from "./tool.js";

const tool = (name: string) =>
  defineTool({ name, description: `Tool ${name}`, input: z.object({}), handler: () => "ok" });
const resource = (uri: string, name = "res") =>
  defineResource({ uri, name, description: "A resource", read: () => "" });
const template = (uriTemplate: string, name = "tpl") =>
  defineResourceTemplate({
    uriTemplate,
    name,
    description: "A template",
    params: z.object({ id: z.string().describe("Id") }),
    read: () => "",
  });
const prompt = (name: string) => definePrompt({ name, description: "A prompt", args: z.object({}), render: () => "x" });

describe("definePack", () => {
  it("groups definitions and splits resources from templates", () => {
    const close = () => undefined;
    const t1 = tool("get_note");
    const r1 = resource("note://index");
    const rt = template("note://{id}");
    const p1 = prompt("summarize");
    const pack = definePack({ name: "notes", tools: [t1], resources: [r1, rt], prompts: [p1], close });
    expect(pack).toEqual({
      kind: "pack",
      name: "notes",
      tools: [t1],
      resources: [r1],
      resourceTemplates: [rt],
      prompts: [p1],
      requiredScopes: [],
      close,
    });
    expect(Object.isFrozen(pack)).toBe(true);
  });

  it("defaults every list to empty", () => {
    expect(definePack({ name: "empty" })).toMatchObject({
      tools: [],
      resources: [],
      resourceTemplates: [],
      prompts: [],
    });
  });

  it("copies the caller's tool list", () => {
    const tools = [tool("a")];
    const pack = definePack({ name: "p", tools });
    tools.push(tool("b"));
    expect(pack.tools.map((t) => t.name)).toEqual(["a"]);
  });

  it("checks the pack name (C13)", () => {
    expect(definitionError(() => definePack({ name: "my notes" })).message).toBe(
      'Pack "my notes": name must match /^[A-Za-z0-9._-]{1,128}$/ (1-128 letters, digits, ".", "_" or "-"), got "my notes" [C13]',
    );
  });

  it("rejects definitions that were not made with the define functions (C13)", () => {
    expect(definitionError(() => definePack({ name: "p", tools: [{ name: "x" } as unknown as AnyTool] })).message).toBe(
      'Pack "p": tools must come from defineTool [C13]',
    );
    expect(definitionError(() => definePack({ name: "p", resources: [{ uri: "note://x" } as never] })).message).toBe(
      'Pack "p": resources must come from defineResource or defineResourceTemplate [C13]',
    );
    expect(definitionError(() => definePack({ name: "p", prompts: [tool("x") as never] })).message).toBe(
      'Pack "p": prompts must come from definePrompt [C13]',
    );
    expect(definitionError(() => definePack({ name: "p", tools: [undefined as never] })).message).toBe(
      'Pack "p": tools must come from defineTool [C13]',
    );
  });

  it("rejects a tool defined twice in one pack (C13)", () => {
    const e = definitionError(() => definePack({ name: "notes", tools: [tool("get_note"), tool("get_note")] }));
    expect(e.message).toBe(
      'Tool "get_note": name is defined twice (in pack "notes" and pack "notes"); names must be unique in a server [C13]',
    );
    expect(e.rule).toBe("C13");
  });

  it("rejects duplicate resources, templates and prompts in one pack (C13)", () => {
    expect(
      definitionError(() =>
        definePack({ name: "n", resources: [resource("note://i", "a"), resource("note://i", "b")] }),
      ).message,
    ).toBe(
      'Resource "note://i": name is defined twice (in pack "n" and pack "n"); names must be unique in a server [C13]',
    );
    expect(
      definitionError(() => definePack({ name: "n", resources: [template("note://{id}"), template("note://{id}")] }))
        .message,
    ).toBe(
      'Resource template "note://{id}": name is defined twice (in pack "n" and pack "n"); names must be unique in a server [C13]',
    );
    expect(definitionError(() => definePack({ name: "n", prompts: [prompt("p"), prompt("p")] })).message).toBe(
      'Prompt "p": name is defined twice (in pack "n" and pack "n"); names must be unique in a server [C13]',
    );
  });
});

describe("checkUniqueNames", () => {
  it("detects a tool name used in two packs, naming both", () => {
    const a = definePack({ name: "notes", tools: [tool("search")] });
    const b = definePack({ name: "crm", tools: [tool("get_account"), tool("search")] });
    const e = definitionError(() => checkUniqueNames([a, b]));
    expect(e.message).toBe(
      'Tool "search": name is defined twice (in pack "notes" and pack "crm"); names must be unique in a server [C13]',
    );
  });

  it("detects resources, templates and prompts across packs", () => {
    const a = definePack({
      name: "a",
      resources: [resource("note://index"), template("note://{id}")],
      prompts: [prompt("summarize")],
    });
    expect(() => checkUniqueNames([a, definePack({ name: "b", resources: [resource("note://index")] })])).toThrow(
      'Resource "note://index": name is defined twice (in pack "a" and pack "b"); names must be unique in a server [C13]',
    );
    expect(() => checkUniqueNames([a, definePack({ name: "b", resources: [template("note://{id}")] })])).toThrow(
      'Resource template "note://{id}": name is defined twice (in pack "a" and pack "b"); names must be unique in a server [C13]',
    );
    expect(() => checkUniqueNames([a, definePack({ name: "b", prompts: [prompt("summarize")] })])).toThrow(
      'Prompt "summarize": name is defined twice (in pack "a" and pack "b"); names must be unique in a server [C13]',
    );
  });

  it("allows the same name for different kinds, and distinct names", () => {
    const a = definePack({ name: "a", tools: [tool("notes")], prompts: [prompt("notes")] });
    const b = definePack({ name: "b", tools: [tool("notes2")], resources: [resource("note://notes", "notes")] });
    expect(() => checkUniqueNames([a, b])).not.toThrow();
    expect(() => checkUniqueNames([])).not.toThrow();
  });

  it("is case-sensitive, as tool names are", () => {
    const a = definePack({ name: "a", tools: [tool("Search")] });
    const b = definePack({ name: "b", tools: [tool("search")] });
    expect(() => checkUniqueNames([a, b])).not.toThrow();
  });

  it("detects the same pack mounted twice", () => {
    const a: Pack = definePack({ name: "a", tools: [tool("x")] });
    expect(() => checkUniqueNames([a, a])).toThrow(
      'Tool "x": name is defined twice (in pack "a" and pack "a"); names must be unique in a server [C13]',
    );
  });
});
