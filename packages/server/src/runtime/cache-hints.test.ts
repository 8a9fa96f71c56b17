import { definePack, defineResource, defineResourceTemplate } from "@toolshed/schema";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definitionsCache, resolveHint, resourceCache, resourceListCache } from "./cache-hints.js";
import { Registry } from "./registry.js";

describe("cache hints", () => {
  it("a result made of several parts gets the shortest life and the strictest scope", () => {
    expect(resolveHint([{ ttlMs: 5000, scope: "public" }, { ttlMs: 1000 }, undefined], 60_000)).toEqual({
      ttlMs: 1000,
      scope: "public",
    });
    expect(resolveHint([{ scope: "public" }, { scope: "private" }, { scope: "public" }], 0)).toEqual({
      ttlMs: 0,
      scope: "private",
    });
    expect(resolveHint([], 300_000)).toEqual({ ttlMs: 300_000, scope: undefined });
  });

  it("lists of definitions live 5 minutes and data 0 unless a pack says otherwise", () => {
    const plain = definePack({
      name: "plain",
      resources: [defineResource({ uri: "a://1", name: "one", description: "One", read: () => "" })],
    });
    expect(definitionsCache([plain])).toEqual({ ttlMs: 300_000, scope: undefined });
    expect(resourceListCache([plain])).toEqual({ ttlMs: 0, scope: undefined });
    const hinted = definePack({
      name: "hinted",
      cache: { definitions: { ttlMs: 10_000 }, data: { ttlMs: 2000, scope: "private" } },
      resources: [defineResource({ uri: "b://1", name: "b", description: "B", read: () => "" })],
    });
    expect(definitionsCache([plain, hinted])).toEqual({ ttlMs: 10_000, scope: undefined });
    expect(resourceListCache([plain, hinted])).toEqual({ ttlMs: 2000, scope: "private" });
  });

  it("a read's hint is its definition's, field by field over its pack's; unknown URIs are always fresh", () => {
    const pack = definePack({
      name: "notes",
      cache: { data: { ttlMs: 60_000, scope: "public" } },
      resources: [
        defineResource({ uri: "note://index", name: "index", description: "Index", read: () => "" }),
        defineResourceTemplate({
          uriTemplate: "note://{title}",
          name: "note",
          description: "One note",
          params: z.object({ title: z.string().describe("Title") }),
          cache: { ttlMs: 5000 },
          read: ({ title }) => title,
        }),
      ],
    });
    const registry = new Registry([pack]);
    expect(resourceCache(registry, "note://index")).toEqual({ ttlMs: 60_000, scope: "public" });
    expect(resourceCache(registry, "note://groceries")).toEqual({ ttlMs: 5000, scope: "public" });
    expect(resourceCache(registry, "other://x")).toEqual({ ttlMs: 0, scope: undefined });
  });
});
