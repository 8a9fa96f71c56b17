import {
  type AuthInfo,
  definePack,
  defineResource,
  defineResourceTemplate,
  defineTool,
  type Logger,
} from "@toolshed/schema";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { CanAccess } from "../access.js";
import { AccessControl, HIDDEN } from "./access-control.js";
import { Registry } from "./registry.js";

function quietLogger(warnings: unknown[] = []): Logger {
  const nothing = () => {};
  return { error: nothing, info: nothing, debug: nothing, warn: (...args: unknown[]) => warnings.push(args) } as Logger;
}

const token = (...scopes: string[]): AuthInfo => ({ token: "t", clientId: "c", scopes });

const pack = definePack({
  name: "notes",
  tools: [
    defineTool({ name: "get_note", description: "Gets one.", input: z.object({}), handler: () => "" }),
    defineTool({
      name: "purge",
      description: "Purges all.",
      input: z.object({}),
      requiredScopes: ["notes:admin"],
      handler: () => "",
    }),
  ],
  resources: [
    defineResource({ uri: "note://secret", name: "secret", description: "Secret", read: () => "" }),
    defineResourceTemplate({
      uriTemplate: "note://{title}",
      name: "note",
      description: "One note",
      params: z.object({ title: z.string().describe("Title") }),
      requiredScopes: ["notes:read"],
      read: ({ title }) => title,
    }),
  ],
});

const control = (canAccess?: CanAccess, warnings?: unknown[]) =>
  new AccessControl(new Registry([pack]), canAccess, quietLogger(warnings));

describe("AccessControl", () => {
  it("checks scopes only for callers with credentials; unknown names are ok so the not-found answer follows", () => {
    const access = control();
    expect(access.filtersByCaller).toBe(true);
    expect(access.access(undefined, "tool", "purge")).toEqual({ ok: true });
    expect(access.access(token("tools:read"), "tool", "purge")).toEqual({
      ok: false,
      hidden: false,
      requiredScopes: ["notes:admin"],
      missingScopes: ["notes:admin"],
    });
    expect(access.access(token("notes:admin"), "tool", "purge")).toEqual({ ok: true });
    expect(access.access(token(), "tool", "no_such_tool")).toEqual({ ok: true });
    expect(access.access(token(), "resourceTemplate", "note://{title}")).toMatchObject({
      missingScopes: ["notes:read"],
    });
  });

  it("hides what canAccess refuses, and fails closed with a warning when it throws", () => {
    const warnings: unknown[] = [];
    const access = control((_auth, target) => {
      if (target.name === "purge") throw new Error("rule broke");
      return target.name !== "secret";
    }, warnings);
    expect(access.access(undefined, "tool", "get_note")).toEqual({ ok: true });
    expect(access.access(undefined, "tool", "purge")).toEqual({ ok: false, hidden: true });
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain("canAccess threw for tool purge");
  });

  it("finds the definition that answers a URI for this caller, passing over hidden ones", () => {
    const access = control((_auth, target) => target.name !== "secret");
    // note://secret is a fixed resource hidden from everyone; the template still matches it.
    const found = access.findResource("note://secret", token("notes:read"));
    expect(found !== HIDDEN && found?.definition.name).toBe("note");
    expect(access.knowsResource("note://secret", token("notes:read"))).toBe(true);
    expect(access.findResource("other://x", undefined)).toBeUndefined();
    const everythingHidden = control(() => false);
    expect(everythingHidden.findResource("note://secret", undefined)).toBe(HIDDEN);
    expect(everythingHidden.knowsResource("note://secret", undefined)).toBe(false);
    expect(everythingHidden.seesResourcesOf("notes", undefined)).toBe(false);
    expect(access.seesResourcesOf("notes", undefined)).toBe(true);
  });

  it("checks nothing when no definition needs a scope and there is no canAccess", () => {
    const open = definePack({
      name: "open",
      tools: [defineTool({ name: "t", description: "T.", input: z.object({}), handler: () => "" })],
    });
    const access = new AccessControl(new Registry([open]), undefined, quietLogger());
    expect(access.filtersByCaller).toBe(false);
    expect(access.access(token(), "tool", "t")).toEqual({ ok: true });
    expect(access.knowsResource("any://x", undefined)).toBe(false);
  });
});
