import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definitionError } from "./definition-error.test-helper.js";
import { definePack } from "./pack.js";
import { definePrompt } from "./prompt.js";
import { defineResource, defineResourceTemplate } from "./resource.js";
import { SCOPE_TOKEN_PATTERN } from "./scopes.js";
import { defineTool } from "./tool.js";

// One maker per kind of definition, each given only its requiredScopes.
const makers = {
  tool: (requiredScopes?: readonly string[]) =>
    defineTool({
      name: "delete_note",
      description: "Deletes a note",
      input: z.object({}),
      handler: () => "ok",
      requiredScopes,
    }),
  resource: (requiredScopes?: readonly string[]) =>
    defineResource({ uri: "note://index", name: "index", description: "All notes", read: () => "", requiredScopes }),
  "resource template": (requiredScopes?: readonly string[]) =>
    defineResourceTemplate({
      uriTemplate: "note://{id}",
      name: "note",
      description: "One note",
      params: z.object({ id: z.string().describe("Note id") }),
      read: () => "",
      requiredScopes,
    }),
  prompt: (requiredScopes?: readonly string[]) =>
    definePrompt({
      name: "summarize",
      description: "Summarize",
      args: z.object({}),
      render: () => "x",
      requiredScopes,
    }),
  pack: (requiredScopes?: readonly string[]) => definePack({ name: "notes", requiredScopes }),
};

const labels: Record<keyof typeof makers, string> = {
  tool: 'Tool "delete_note"',
  resource: 'Resource "index"',
  "resource template": 'Resource template "note"',
  prompt: 'Prompt "summarize"',
  pack: 'Pack "notes"',
};

describe.each(Object.keys(makers) as (keyof typeof makers)[])("requiredScopes on a %s", (kind) => {
  const make = makers[kind];

  it("is [] (frozen) when not given", () => {
    const made = make();
    expect(made.requiredScopes).toEqual([]);
    expect(Object.isFrozen(made.requiredScopes)).toBe(true);
  });

  it("keeps the scopes given, frozen, in a copy the caller cannot change afterwards", () => {
    const given = ["notes:admin", "notes:read"];
    const made = make(given);
    given.push("later");
    expect(made.requiredScopes).toEqual(["notes:admin", "notes:read"]);
    expect(Object.isFrozen(made.requiredScopes)).toBe(true);
  });

  it("accepts every RFC 6749 scope-token character", () => {
    expect(make(["!#[]~", "https://api.example.com/notes.write"]).requiredScopes).toHaveLength(2);
  });

  it("rejects a scope with a space, naming the definition and what works (C13)", () => {
    const error = definitionError(() => make(["notes admin"]));
    expect(error.message).toBe(
      `${labels[kind]}: requiredScopes[0] must be one scope token (printable ASCII without spaces, '"' or '\\'), such as "notes:admin", got "notes admin"; list several scopes as separate strings [C13]`,
    );
  });

  it("rejects an empty scope, a quote, a backslash and a non-ASCII letter", () => {
    for (const bad of ["", 'a"b', "a\\b", "notes:lösch"]) {
      expect(definitionError(() => make(["ok", bad])).message).toContain(
        `requiredScopes[1] must be one scope token (printable ASCII without spaces, '"' or '\\'), such as "notes:admin", got ${JSON.stringify(bad)}`,
      );
    }
  });

  it("rejects a scope named twice", () => {
    expect(definitionError(() => make(["notes:read", "notes:admin", "notes:read"])).message).toBe(
      `${labels[kind]}: requiredScopes names "notes:read" twice; list each scope once [C13]`,
    );
  });

  it("rejects something other than a list of strings", () => {
    expect(definitionError(() => make("notes:admin" as unknown as string[])).message).toBe(
      `${labels[kind]}: requiredScopes must be a list of scope strings such as ["notes:admin"], got "notes:admin" [C13]`,
    );
    expect(definitionError(() => make([42 as unknown as string])).message).toContain(
      "requiredScopes[0] must be one scope token",
    );
  });
});

describe("SCOPE_TOKEN_PATTERN", () => {
  it("is RFC 6749's scope-token: %x21 / %x23-5B / %x5D-7E, one or more", () => {
    expect(SCOPE_TOKEN_PATTERN.test("tools:read")).toBe(true);
    expect(SCOPE_TOKEN_PATTERN.test("a b")).toBe(false);
    expect(SCOPE_TOKEN_PATTERN.test("")).toBe(false);
  });
});
