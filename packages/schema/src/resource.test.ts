import { type } from "arktype";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { RequestContext } from "./context.js";
import { definitionError } from "./definition-error.test-helper.js";
import { jsonSchema } from "./json-schema-input.js";
import { defineResource, defineResourceTemplate, type ResourceTemplateConfig } from "./resource.js";

describe("defineResource", () => {
  const read = () => "# Notes";

  it("keeps the definition as given, frozen, with kind resource", () => {
    const r = defineResource({
      uri: "note://index",
      name: "notes_index",
      title: "Notes index",
      description: "All note titles",
      mimeType: "text/markdown",
      read,
    });
    expect(r).toEqual({
      kind: "resource",
      uri: "note://index",
      name: "notes_index",
      title: "Notes index",
      description: "All note titles",
      mimeType: "text/markdown",
      requiredScopes: [],
      read,
    });
    expect(Object.isFrozen(r)).toBe(true);
  });

  it.each(["note://index", "file:///etc/hosts", "https://example.com/a?b=c", "urn:isbn:0451450523"])(
    "accepts the absolute URI %s",
    (uri) => {
      expect(defineResource({ uri, name: "r", description: "A resource", read }).uri).toBe(uri);
    },
  );

  it.each(["not a uri", "/relative/path", "index", ""])("rejects the URI %j", (uri) => {
    const e = definitionError(() => defineResource({ uri, name: "notes_index", description: "All notes", read }));
    expect(e.message).toBe(
      `Resource "notes_index": uri must be an absolute URI such as note://index, got ${JSON.stringify(uri)} [C13]`,
    );
    expect(e.rule).toBe("C13");
  });

  it("checks the name and description", () => {
    expect(
      definitionError(() => defineResource({ uri: "note://x", name: "bad name", description: "d", read })).message,
    ).toBe(
      'Resource "bad name": name must match /^[A-Za-z0-9._-]{1,128}$/ (1-128 letters, digits, ".", "_" or "-"), got "bad name" [C13]',
    );
    expect(definitionError(() => defineResource({ uri: "note://x", name: "r", description: " ", read })).message).toBe(
      'Resource "r": description must be a non-empty string that tells the model what this is for [C13]',
    );
  });
});

describe("defineResourceTemplate", () => {
  const params = z.object({ title: z.string().min(2).describe("Note title") });
  const note = defineResourceTemplate({
    uriTemplate: "note://{title}",
    name: "note",
    description: "A note by title",
    mimeType: "text/plain",
    params,
    read: (p) => `note ${p.title}`,
  });

  it("lists the template variables", () => {
    expect(note.kind).toBe("resourceTemplate");
    expect(note.variables).toEqual(["title"]);
    expect(note.uriTemplate).toBe("note://{title}");
    expect(Object.isFrozen(note)).toBe(true);
  });

  it("match() extracts variables from a URI of the template", () => {
    expect(note.match("note://groceries")).toEqual({ title: "groceries" });
    expect(note.match("note://todo-2025")).toEqual({ title: "todo-2025" });
  });

  it("match() gives undefined for other URIs", () => {
    expect(note.match("other://groceries")).toBeUndefined();
    expect(note.match("note://a/b")).toBeUndefined();
    expect(note.match("note:/x")).toBeUndefined();
  });

  it("match() handles several variables and reserved expansion", () => {
    const t = defineResourceTemplate({
      uriTemplate: "repo://{owner}/{name}/file/{+path}",
      name: "repo_file",
      description: "A file in a repository",
      params: z.object({
        owner: z.string().describe("Owner"),
        name: z.string().describe("Repository"),
        path: z.string().describe("File path"),
      }),
      read: () => "",
    });
    expect(t.variables).toEqual(["owner", "name", "path"]);
    expect(t.match("repo://ann/notes/file/src/a.ts")).toEqual({ owner: "ann", name: "notes", path: "src/a.ts" });
  });

  it("parseParams validates the variables with hints (C6)", () => {
    expect(note.parseParams({ title: "groceries" })).toEqual({ success: true, data: { title: "groceries" } });
    expect(note.parseParams({ title: "a" })).toEqual({
      success: false,
      issues: [{ path: "title", message: "must be at least 2 characters (got 1)" }],
    });
    expect(note.parseParams({})).toEqual({
      success: false,
      issues: [{ path: "title", message: "is required (a string)" }],
    });
    expect(note.parseParams({ title: ["a", "b"] })).toEqual({
      success: false,
      issues: [{ path: "title", message: "must be a string (got an array of 2 items)" }],
    });
    expect(note.parseParams({ title: "ab", titel: "x" })).toEqual({
      success: false,
      issues: [{ path: "titel", message: 'unknown argument; did you mean "title"? Valid arguments: title' }],
    });
  });

  it("parseParams of a matched URI, with coercion from strings", () => {
    const page = defineResourceTemplate({
      uriTemplate: "log://{day}/{page}",
      name: "log_page",
      description: "A page of a day's log",
      params: z.object({
        day: z.iso.date().describe("Day"),
        page: z.coerce.number().int().min(1).describe("Page, from 1"),
      }),
      read: () => "",
    });
    const vars = page.match("log://2025-01-31/3");
    expect(vars).toEqual({ day: "2025-01-31", page: "3" });
    expect(page.parseParams(vars ?? {})).toEqual({ success: true, data: { day: "2025-01-31", page: 3 } });
    expect(page.parseParams(page.match("log://yesterday/0") ?? {})).toEqual({
      success: false,
      issues: [
        { path: "day", message: 'must be an ISO 8601 date such as 2025-01-31 (got "yesterday")' },
        { path: "page", message: "must be at least 1 (got 0)" },
      ],
    });
  });

  it("read and list get typed params", () => {
    defineResourceTemplate({
      uriTemplate: "note://{title}",
      name: "note",
      description: "A note",
      params: z.object({ title: z.string().describe("t") }),
      read: (p, ctx) => {
        expectTypeOf(p).toEqualTypeOf<{ title: string }>();
        expectTypeOf(ctx).toEqualTypeOf<RequestContext & { uri: string }>();
        return "x";
      },
    });
  });

  describe("definition checks (C13)", () => {
    const base: ResourceTemplateConfig<z.ZodObject> = {
      uriTemplate: "note://{title}",
      name: "note",
      description: "A note",
      params: z.object({ title: z.string().describe("t") }),
      read: () => "",
    };
    const err = (over: Partial<ResourceTemplateConfig<z.ZodObject>>) =>
      definitionError(() => defineResourceTemplate({ ...base, ...over })).message;

    it("params keys must be exactly the template variables", () => {
      expect(err({ params: z.object({ title: z.string(), extra: z.string() }) })).toBe(
        'Resource template "note": params keys (title, extra) must be exactly the template variables (title) [C13]',
      );
      expect(err({ params: z.object({ name: z.string() }) })).toBe(
        'Resource template "note": params keys (name) must be exactly the template variables (title) [C13]',
      );
      expect(err({ params: z.object({}) })).toBe(
        'Resource template "note": params keys (none) must be exactly the template variables (title) [C13]',
      );
      expect(err({ uriTemplate: "note://{title}{?rev}" })).toBe(
        'Resource template "note": params keys (title) must be exactly the template variables (title, rev) [C13]',
      );
    });

    it("a template without variables is not a template", () => {
      expect(err({ uriTemplate: "note://index", params: z.object({}) })).toBe(
        'Resource template "note": params keys (none) must be exactly the template variables (none) [C13]',
      );
    });

    it("an invalid template", () => {
      expect(err({ uriTemplate: "note://{title" })).toBe(
        'Resource template "note": uriTemplate is not a valid RFC 6570 template: Unclosed template expression [C13]',
      );
    });

    it("completion for something that is not a variable", () => {
      expect(err({ complete: { titel: () => [] } as never })).toBe(
        'Resource template "note": complete names "titel", which is not a template variable [C13]',
      );
      expect(() => defineResourceTemplate({ ...base, complete: { title: () => ["a"] } })).not.toThrow();
    });

    it("name and description", () => {
      expect(err({ name: "" })).toBe(
        'Resource template "": name must match /^[A-Za-z0-9._-]{1,128}$/ (1-128 letters, digits, ".", "_" or "-"), got "" [C13]',
      );
      expect(err({ description: "" })).toBe(
        'Resource template "note": description must be a non-empty string that tells the model what this is for [C13]',
      );
    });
  });
});

describe("defineResourceTemplate with a JSON Schema document or a Standard Schema", () => {
  it("checks the variables against the document, taking numbers from the URI's strings", () => {
    const page = defineResourceTemplate({
      uriTemplate: "log://{day}/{page}",
      name: "log_page",
      description: "A page of a day's log",
      params: jsonSchema<{ day: string; page: number }>({
        type: "object",
        properties: {
          day: { type: "string", format: "date", description: "Day, such as 2025-01-31" },
          page: { type: "integer", minimum: 1, description: "Page, from 1" },
        },
        required: ["day", "page"],
        additionalProperties: false,
      }),
      read: ({ day, page }) => `${day} p${page}`,
    });
    expect(page.schemaKind).toBe("json-schema");
    expect(page.parseParams(page.match("log://2025-01-31/3") ?? {})).toMatchObject({
      success: true,
      data: { day: "2025-01-31", page: 3 },
    });
    expect(page.parseParams(page.match("log://yesterday/0") ?? {})).toEqual({
      success: false,
      issues: [
        { path: "day", message: 'must be an ISO 8601 date such as 2025-01-31 (got "yesterday")' },
        { path: "page", message: "must be at least 1 (got 0)" },
      ],
    });
  });

  it("an ArkType object: its keys are the variables", () => {
    const user = defineResourceTemplate({
      uriTemplate: "user://{handle}",
      name: "user",
      description: "A user by handle",
      params: type({ handle: type("/^[a-z]{2,12}$/").describe("a handle of 2 to 12 lower-case letters") }),
      read: ({ handle }) => handle,
    });
    expect(user.schemaKind).toBe("standard");
    expect(user.parseParams({ handle: "Ada!" })).toMatchObject({ success: false });
    const wrong = definitionError(() =>
      defineResourceTemplate({
        uriTemplate: "user://{id}",
        name: "user",
        description: "A user by id",
        params: { type: "object", properties: { handle: { type: "string", description: "h" } } },
        read: () => "",
      }),
    );
    expect(wrong.message).toBe(
      'Resource template "user": params keys (handle) must be exactly the template variables (id) [C13]',
    );
  });
});
