import type { JsonSchema } from "./json-schema.js";

/** One difference between two published contracts, and whether it can break a client. */
export interface ContractChange {
  kind: "breaking" | "additive";
  /** What changed, e.g. `tool search_tickets input.limit`. */
  at: string;
  message: string;
}

/** What a server publishes: tools/list, resource templates, resources and prompts. */
export interface PublishedContract {
  tools: ReadonlyArray<{ name: string; inputSchema: JsonSchema; outputSchema?: JsonSchema; [key: string]: unknown }>;
  resources?: ReadonlyArray<{ uri: string; [key: string]: unknown }>;
  resourceTemplates?: ReadonlyArray<{ uriTemplate: string; [key: string]: unknown }>;
  prompts?: ReadonlyArray<{ name: string; arguments?: ReadonlyArray<{ name: string; required?: boolean }> }>;
}

type Side = "input" | "output";

const LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"] as const;
const UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"] as const;

function typesOf(schema: JsonSchema): string[] | undefined {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.anyOf)) {
    const types = (schema.anyOf as JsonSchema[]).map((b) => b.type);
    if (types.every((t): t is string => typeof t === "string")) return types;
  }
  return undefined;
}

/**
 * A bound of a schema. The safe-integer range Zod gives every integer (published before Toolshed
 * dropped it) counts as none: the values it allows are the same either way.
 */
function bound(schema: JsonSchema, key: (typeof LOWER)[number] | (typeof UPPER)[number]): number | undefined {
  const value = schema[key] as number | undefined;
  if (schema.type !== "integer") return value;
  if (
    (key === "minimum" && value === Number.MIN_SAFE_INTEGER) ||
    (key === "maximum" && value === Number.MAX_SAFE_INTEGER)
  )
    return undefined;
  return value;
}

/**
 * Classifies how a schema changed. For input, anything the old schema accepted that the new one
 * rejects is breaking; for output, anything a client could rely on that is gone or different is.
 */
function diffSchema(before: JsonSchema, after: JsonSchema, side: Side, at: string, out: ContractChange[]): void {
  const add = (kind: ContractChange["kind"], message: string) => out.push({ kind, at, message });
  const tb = typesOf(before);
  const ta = typesOf(after);
  if (tb && ta) {
    const lost = tb.filter((t) => !ta.includes(t) && !(t === "integer" && ta.includes("number")));
    const gained = ta.filter((t) => !tb.includes(t) && !(t === "integer" && tb.includes("number")));
    if (side === "input" && lost.length > 0) add("breaking", `no longer accepts ${lost.join(", ")}`);
    if (side === "output" && gained.length > 0) add("breaking", `may now be ${gained.join(", ")}`);
    if (side === "output" && lost.length > 0 && gained.length === 0) add("additive", `is no longer ${lost.join(", ")}`);
    if (side === "input" && gained.length > 0) add("additive", `now also accepts ${gained.join(", ")}`);
  }
  if (Array.isArray(before.enum) && Array.isArray(after.enum)) {
    const removed = before.enum.filter((v) => !(after.enum as unknown[]).includes(v));
    const added = (after.enum as unknown[]).filter((v) => !(before.enum as unknown[]).includes(v));
    if (removed.length > 0) {
      add(side === "input" ? "breaking" : "additive", `enum lost ${removed.map((v) => JSON.stringify(v)).join(", ")}`);
    }
    if (added.length > 0) {
      add(side === "input" ? "additive" : "breaking", `enum gained ${added.map((v) => JSON.stringify(v)).join(", ")}`);
    }
  } else if (!Array.isArray(before.enum) && Array.isArray(after.enum) && side === "input") {
    add("breaking", "now only accepts listed values");
  }
  for (const key of LOWER) {
    const b = bound(before, key);
    const a = bound(after, key);
    if (a !== undefined && (b === undefined || a > b))
      add(side === "input" ? "breaking" : "additive", `${key} raised to ${a}`);
    else if (b !== undefined && (a === undefined || a < b))
      add(side === "input" ? "additive" : "breaking", `${key} lowered${a === undefined ? " (removed)" : ` to ${a}`}`);
  }
  for (const key of UPPER) {
    const b = bound(before, key);
    const a = bound(after, key);
    if (a !== undefined && (b === undefined || a < b))
      add(side === "input" ? "breaking" : "additive", `${key} lowered to ${a}`);
    else if (b !== undefined && (a === undefined || a > b))
      add(side === "input" ? "additive" : "breaking", `${key} raised${a === undefined ? " (removed)" : ` to ${a}`}`);
  }
  if (before.pattern !== after.pattern && after.pattern !== undefined) {
    add(side === "input" ? "breaking" : "additive", `pattern is now ${String(after.pattern)}`);
  }
  if (JSON.stringify(before.default) !== JSON.stringify(after.default) && side === "input") {
    add("additive", `default is now ${after.default === undefined ? "none" : JSON.stringify(after.default)}`);
  }
  const pb = (before.properties ?? {}) as Record<string, JsonSchema>;
  const pa = (after.properties ?? {}) as Record<string, JsonSchema>;
  const rb = new Set((before.required ?? []) as string[]);
  const ra = new Set((after.required ?? []) as string[]);
  const prefix = at.endsWith(":") ? at.slice(0, -1) : at;
  for (const name of Object.keys(pb)) {
    const path = `${prefix}.${name}`;
    if (!(name in pa)) {
      out.push({ kind: "breaking", at: path, message: side === "input" ? "argument removed" : "field removed" });
      continue;
    }
    diffSchema(pb[name] as JsonSchema, pa[name] as JsonSchema, side, path, out);
    if (side === "input" && !rb.has(name) && ra.has(name))
      out.push({ kind: "breaking", at: path, message: "now required" });
    if (side === "input" && rb.has(name) && !ra.has(name))
      out.push({ kind: "additive", at: path, message: "now optional" });
    if (side === "output" && rb.has(name) && !ra.has(name))
      out.push({ kind: "breaking", at: path, message: "may now be absent" });
  }
  for (const name of Object.keys(pa)) {
    if (name in pb) continue;
    const path = `${prefix}.${name}`;
    if (side === "input" && ra.has(name))
      out.push({ kind: "breaking", at: path, message: "added as a required argument" });
    else
      out.push({ kind: "additive", at: path, message: side === "input" ? "optional argument added" : "field added" });
  }
  const ib = before.items as JsonSchema | undefined;
  const ia = after.items as JsonSchema | undefined;
  if (ib && ia && !Array.isArray(ib) && !Array.isArray(ia)) diffSchema(ib, ia, side, `${prefix}[]`, out);
}

function byKey<T>(items: ReadonlyArray<T> | undefined, key: (item: T) => string): Map<string, T> {
  return new Map((items ?? []).map((item) => [key(item), item]));
}

/**
 * Compares two published contracts (for example a committed snapshot and the live server) and
 * classifies every difference: removed tools, arguments added as required, narrowed enums and
 * bounds, removed or retyped output fields are breaking; the rest is additive.
 */
export function diffContracts(before: PublishedContract, after: PublishedContract): ContractChange[] {
  const out: ContractChange[] = [];
  const tb = byKey(before.tools, (t) => t.name);
  const ta = byKey(after.tools, (t) => t.name);
  for (const [name, old] of tb) {
    const now = ta.get(name);
    if (!now) {
      out.push({ kind: "breaking", at: `tool ${name}`, message: "tool removed" });
      continue;
    }
    diffSchema(old.inputSchema, now.inputSchema, "input", `tool ${name} input`, out);
    if (old.outputSchema && now.outputSchema) {
      diffSchema(old.outputSchema, now.outputSchema, "output", `tool ${name} output`, out);
    } else if (old.outputSchema && !now.outputSchema) {
      out.push({ kind: "breaking", at: `tool ${name} output`, message: "structured output removed" });
    } else if (!old.outputSchema && now.outputSchema) {
      out.push({ kind: "additive", at: `tool ${name} output`, message: "structured output added" });
    }
    const ab = JSON.stringify(old.annotations ?? {});
    const aa = JSON.stringify(now.annotations ?? {});
    if (ab !== aa) out.push({ kind: "additive", at: `tool ${name} annotations`, message: `now ${aa}` });
    if (old.description !== now.description)
      out.push({ kind: "additive", at: `tool ${name}`, message: "description changed" });
  }
  for (const name of ta.keys())
    if (!tb.has(name)) out.push({ kind: "additive", at: `tool ${name}`, message: "tool added" });

  const compareNamed = <T>(label: string, b: Map<string, T>, a: Map<string, T>) => {
    for (const key of b.keys())
      if (!a.has(key)) out.push({ kind: "breaking", at: `${label} ${key}`, message: `${label} removed` });
    for (const key of a.keys())
      if (!b.has(key)) out.push({ kind: "additive", at: `${label} ${key}`, message: `${label} added` });
  };
  compareNamed(
    "resource",
    byKey(before.resources, (r) => r.uri),
    byKey(after.resources, (r) => r.uri),
  );
  compareNamed(
    "resource template",
    byKey(before.resourceTemplates, (r) => r.uriTemplate),
    byKey(after.resourceTemplates, (r) => r.uriTemplate),
  );
  const pb = byKey(before.prompts, (p) => p.name);
  const pa = byKey(after.prompts, (p) => p.name);
  compareNamed("prompt", pb, pa);
  for (const [name, old] of pb) {
    const now = pa.get(name);
    if (!now) continue;
    const ab = byKey(old.arguments, (x) => x.name);
    const aa = byKey(now.arguments, (x) => x.name);
    for (const [arg, o] of ab) {
      const n = aa.get(arg);
      if (!n) out.push({ kind: "breaking", at: `prompt ${name}.${arg}`, message: "argument removed" });
      else if (!o.required && n.required)
        out.push({ kind: "breaking", at: `prompt ${name}.${arg}`, message: "now required" });
    }
    for (const [arg, n] of aa) {
      if (ab.has(arg)) continue;
      out.push({
        kind: n.required ? "breaking" : "additive",
        at: `prompt ${name}.${arg}`,
        message: n.required ? "added as a required argument" : "optional argument added",
      });
    }
  }
  return out;
}
