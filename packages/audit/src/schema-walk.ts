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

/**
 * Every subschema a validator would apply to instance data, with its argument path. Definitions are
 * visited once each, as `(Name)`, not at every `$ref`.
 */
export function walkSchema(root: Schema, visit: (v: Visit) => void): void {
  const seen = new Set<Schema>();
  const go = (node: Schema, path: string, isProperty: boolean) => {
    if (seen.has(node)) return;
    seen.add(node);
    visit({ node, path, isProperty });
    const properties = node.properties;
    if (isSchema(properties)) {
      for (const [name, sub] of Object.entries(properties))
        if (isSchema(sub)) go(sub, path === "" ? name : `${path}.${name}`, true);
    }
    const items = node.items;
    if (isSchema(items)) go(items, `${path}[]`, false);
    // Tuples (draft-07 `items` lists, 2020-12 `prefixItems`): each position is its own schema.
    for (const list of [items, node.prefixItems]) {
      if (!Array.isArray(list)) continue;
      for (const [i, sub] of list.entries()) if (isSchema(sub)) go(sub, `${path}[${i}]`, false);
    }
    if (isSchema(node.additionalProperties)) go(node.additionalProperties, `${path}{}`, false);
    if (isSchema(node.patternProperties)) {
      for (const sub of Object.values(node.patternProperties)) if (isSchema(sub)) go(sub, `${path}{}`, false);
    }
    for (const key of BRANCH_KEYS) {
      const branches = node[key];
      if (Array.isArray(branches)) for (const b of branches) if (isSchema(b)) go(b, path, false);
    }
  };
  go(root, "", false);
  for (const [name, def] of Object.entries(definitionsOf(root))) go(def, `(${name})`, false);
}

/** The types a node allows, from `type` as a string or a list. */
export function typesOf(node: Schema): string[] {
  if (typeof node.type === "string") return [node.type];
  if (Array.isArray(node.type)) return node.type.filter((t): t is string => typeof t === "string");
  return [];
}
