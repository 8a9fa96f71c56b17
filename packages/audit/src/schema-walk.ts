/** A JSON Schema object as a server publishes it. */
export type Schema = { [key: string]: unknown };

export function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Named definitions of a schema document, from `definitions` (draft-07) or `$defs` (2020-12). */
export function definitionsOf(root: Schema): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const key of ["definitions", "$defs"]) {
    const defs = root[key];
    if (isSchema(defs)) for (const [name, sub] of Object.entries(defs)) if (isSchema(sub)) out[name] = sub;
  }
  return out;
}

/** The local definition a `$ref` such as `#/definitions/Node` points at, if any. */
export function resolveRef(ref: unknown, definitions: Record<string, Schema>): Schema | undefined {
  if (typeof ref !== "string") return undefined;
  const match = /^#\/(?:definitions|\$defs)\/(.+)$/.exec(ref);
  return match?.[1] ? definitions[match[1]] : undefined;
}

export interface Visit {
  node: Schema;
  /** Where the node is, as an argument path: `filter.status`, `ids[]`, `(Node)` for a definition. */
  path: string;
  /** True for properties of an object, where a description is expected. */
  isProperty: boolean;
}

const BRANCH_KEYS = ["anyOf", "oneOf", "allOf"] as const;

/** Deeper subschemas are not checked: real tools nest a few levels, and the walk must not overflow the stack. */
export const MAX_DEPTH = 64;
/** More subschemas than this in one schema are not checked. */
export const MAX_NODES = 10_000;

/** Where a walk stopped early, if it did. */
export interface WalkLimit {
  /** The path of the first subschema deeper than MAX_DEPTH. */
  tooDeep?: string;
  /** True when the schema has more than MAX_NODES subschemas. */
  tooMany?: boolean;
}

/**
 * Every subschema a validator would apply to instance data, with its argument path, down to
 * MAX_DEPTH levels and up to MAX_NODES subschemas. Definitions are visited once each, as `(Name)`,
 * not at every `$ref`.
 */
export function walkSchema(root: Schema, visit: (v: Visit) => void): WalkLimit {
  const seen = new Set<Schema>();
  const limit: WalkLimit = {};
  const go = (node: Schema, path: string, isProperty: boolean, depth = 0) => {
    if (seen.has(node) || limit.tooMany) return;
    if (depth > MAX_DEPTH) {
      limit.tooDeep ??= path;
      return;
    }
    if (seen.size >= MAX_NODES) {
      limit.tooMany = true;
      return;
    }
    seen.add(node);
    visit({ node, path, isProperty });
    const next = depth + 1;
    const properties = node.properties;
    if (isSchema(properties)) {
      for (const [name, sub] of Object.entries(properties))
        if (isSchema(sub)) go(sub, path === "" ? name : `${path}.${name}`, true, next);
    }
    const items = node.items;
    if (isSchema(items)) go(items, `${path}[]`, false, next);
    // Tuples (draft-07 `items` lists, 2020-12 `prefixItems`): each position is its own schema.
    for (const list of [items, node.prefixItems]) {
      if (!Array.isArray(list)) continue;
      for (const [i, sub] of list.entries()) if (isSchema(sub)) go(sub, `${path}[${i}]`, false, next);
    }
    if (isSchema(node.additionalProperties)) go(node.additionalProperties, `${path}{}`, false, next);
    if (isSchema(node.patternProperties)) {
      for (const sub of Object.values(node.patternProperties)) if (isSchema(sub)) go(sub, `${path}{}`, false, next);
    }
    for (const key of BRANCH_KEYS) {
      const branches = node[key];
      if (Array.isArray(branches)) for (const b of branches) if (isSchema(b)) go(b, path, false, next);
    }
  };
  go(root, "", false);
  for (const [name, def] of Object.entries(definitionsOf(root))) go(def, `(${name})`, false);
  return limit;
}

/**
 * The first definition whose `$ref` chain comes back to itself without a schema in between, as
 * the chain of references; such a `$ref` resolves to nothing in any validator.
 */
export function refCycle(root: Schema): string[] | undefined {
  const definitions = definitionsOf(root);
  // Chains already followed to a schema; each definition is followed once.
  const settled = new Set<Schema>();
  for (const start of Object.values(definitions)) {
    const chain: string[] = [];
    const seen = new Set<Schema>();
    let node: Schema | undefined = start;
    while (node && typeof node.$ref === "string" && !settled.has(node)) {
      if (seen.has(node)) return chain;
      seen.add(node);
      chain.push(node.$ref);
      node = resolveRef(node.$ref, definitions);
    }
    for (const s of seen) settled.add(s);
  }
  return undefined;
}

/** The types a node allows, from `type` as a string or a list. */
export function typesOf(node: Schema): string[] {
  if (typeof node.type === "string") return [node.type];
  if (Array.isArray(node.type)) return node.type.filter((t): t is string => typeof t === "string");
  return [];
}
