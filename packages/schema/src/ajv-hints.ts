import type { ValidationIssue } from "@toolshed/errors";
import type { ErrorObject } from "ajv";
import { unknownKeyMessage } from "./arguments.js";
import { type Coercion, jsonFrom, nameKey, numberFrom } from "./coerce.js";
import { describeValue, formatPath, MAX_CLOSEST } from "./hints.js";

// Ajv's errors (allErrors, verbose) phrased as the same hints Zod errors get (C6), and the lax
// coercions they point at. Only errors outside anyOf/oneOf branches are coerced: inside one, which
// branch was meant is not for the server to guess.

type Schema = Record<string, unknown>;

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

const FORMAT_NAMES: Record<string, string> = {
  "date-time": "an ISO 8601 date-time such as 2025-01-31T12:00:00Z",
  date: "an ISO 8601 date such as 2025-01-31",
  time: "an ISO 8601 time such as 12:00:00Z",
  duration: "an ISO 8601 duration such as P3D",
  email: "an email address",
  "idn-email": "an email address",
  hostname: "a host name",
  "idn-hostname": "a host name",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  uri: "an absolute URI",
  "uri-reference": "a URI reference",
  iri: "an absolute IRI",
  uuid: "a UUID",
  regex: "a regular expression",
  "json-pointer": "a JSON pointer such as /a/b",
};

const quote = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v)));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function typeNames(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(",");
  return [...new Set(types.map((t) => TYPE_NAMES[String(t)] ?? String(t)))].join(" or ");
}

/** The instance path as keys: array indexes as numbers (read from the data), the rest as names. */
function keysOf(pointer: string, root: unknown): PropertyKey[] {
  if (pointer === "") return [];
  const out: PropertyKey[] = [];
  let at: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    const key = Array.isArray(at) && /^\d+$/.test(part) ? Number(part) : part;
    out.push(key);
    at = at !== null && typeof at === "object" ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return out;
}

interface Hint {
  path: PropertyKey[];
  message: string;
}

const isComposite = (e: ErrorObject) => e.keyword === "anyOf" || e.keyword === "oneOf";

/** Whether `path` is `at` or below it (JSON pointers). */
const within = (path: string, at: string) =>
  path === at || (path.length > at.length && path.startsWith(at) && path[at.length] === "/");

/** Whether error `e` explains composite `c`: it lies under both c's schema path and c's instance path. */
function explains(e: ErrorObject, c: ErrorObject): boolean {
  const s = e.schemaPath;
  const at = c.schemaPath;
  return s.length > at.length && s.startsWith(at) && s[at.length] === "/" && within(e.instancePath, c.instancePath);
}

/**
 * Which anyOf/oneOf failure each error belongs to. Ajv writes a composite's branch errors just
 * before the composite's own error, so one backward pass with a stack of open composites finds
 * them: a composite stays open until an error lies outside its instance path, and its members are
 * the errors it explains from `start` up to it. The instance path counts as well as the schema
 * path: array items share a schema path, and by it alone every item's errors would explain every
 * item (work and text growing with the cube of the items). Errors reached through a `$ref` have
 * the referenced schema's path, so they are not a branch's: they are listed on their own.
 */
interface ErrorTree {
  readonly errors: readonly ErrorObject[];
  /** How many composites explain each error (they nest: each holds the next). */
  readonly depth: Int32Array;
  /** For a composite, where its members may start (its own index when it has none). */
  readonly start: Int32Array;
}

function buildTree(errors: readonly ErrorObject[]): ErrorTree {
  const depth = new Int32Array(errors.length);
  const start = new Int32Array(errors.length);
  const open: number[] = [];
  for (let i = errors.length - 1; i >= 0; i--) {
    const e = errors[i] as ErrorObject;
    while (
      open.length > 0 &&
      !within(e.instancePath, (errors[open[open.length - 1] as number] as ErrorObject).instancePath)
    ) {
      start[open.pop() as number] = i + 1;
    }
    let d = 0;
    for (const c of open) if (explains(e, errors[c] as ErrorObject)) d++;
    depth[i] = d;
    if (isComposite(e)) {
      start[i] = i;
      open.push(i);
    }
  }
  for (const c of open) start[c] = 0;
  return { errors, depth, start };
}

// coerceFromAjv and issuesFromAjv read the same errors: the tree is built once for both.
const trees = new WeakMap<readonly ErrorObject[], ErrorTree>();
function treeOf(errors: readonly ErrorObject[]): ErrorTree {
  let tree = trees.get(errors);
  if (!tree) {
    tree = buildTree(errors);
    trees.set(errors, tree);
  }
  return tree;
}

/** The errors among `indexes` that say something at nesting `level` (not inside a deeper branch). */
function problemsOf(tree: ErrorTree, indexes: Iterable<number>, level: number): number[] {
  const out: number[] = [];
  for (const i of indexes) {
    // `if` failing says only "must match then"; the then-branch's own errors say what is missing.
    if (tree.depth[i] === level && tree.errors[i]?.keyword !== "if") out.push(i);
  }
  return out;
}

function* range(from: number, to: number): Generator<number> {
  for (let i = from; i < to; i++) yield i;
}

/**
 * The hints for the errors at `problems`, at most `limit` of them rendered; `more` counts the
 * rest (told apart by where they are and what they say, not rendered: a refused call costs its
 * first hints only).
 */
function hintsOf(
  tree: ErrorTree,
  problems: readonly number[],
  root: unknown,
  limit: number,
): { hints: Hint[]; more: number } {
  const hints: Hint[] = [];
  const seen = new Set<string>();
  const unrendered = new Set<string>();
  for (const i of problems) {
    const error = tree.errors[i] as ErrorObject;
    if (hints.length >= limit) {
      unrendered.add(`${error.instancePath}\u0000${error.schemaPath}\u0000${JSON.stringify(error.params)}`);
      continue;
    }
    const hint = isComposite(error) ? compositeHint(tree, i, root) : keywordHint(error, root);
    const key = `${formatPath(hint.path)}\u0000${hint.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    hints.push(hint);
  }
  return { hints, more: unrendered.size };
}

function compositeHint(tree: ErrorTree, at: number, root: unknown): Hint {
  const error = tree.errors[at] as ErrorObject;
  const path = keysOf(error.instancePath, root);
  const passing = (error.params as { passingSchemas?: number[] | null }).passingSchemas;
  if (error.keyword === "oneOf" && Array.isArray(passing)) {
    return {
      path,
      message: `matches more than one allowed form (forms ${passing.map((i) => i + 1).join(" and ")}); send a value that fits exactly one`,
    };
  }
  // The members grouped by the branch they explain.
  const branches = new Map<string, number[]>();
  for (let i = tree.start[at] as number; i < at; i++) {
    if (!explains(tree.errors[i] as ErrorObject, error)) continue;
    const branch = (tree.errors[i] as ErrorObject).schemaPath.slice(error.schemaPath.length + 1).split("/", 1)[0] ?? "";
    const group = branches.get(branch);
    if (group) group.push(i);
    else branches.set(branch, [i]);
  }
  const groups = [...branches.values()];
  const got = `(got ${describeValue((error as { data?: unknown }).data)})`;
  if (groups.length === 0) return { path, message: `does not match any allowed form ${got}` };
  const alone = (g: number[]) => (g.length === 1 ? tree.errors[g[0] as number] : undefined);
  const paramsOf = (g: number[]) => (tree.errors[g[0] as number] as ErrorObject).params;
  // Each form only asks for one more property: say which the caller may send.
  if (groups.every((g) => alone(g)?.keyword === "required" && alone(g)?.instancePath === error.instancePath)) {
    const names = groups.map((g) => String((paramsOf(g) as { missingProperty?: string }).missingProperty));
    const noun = path.length === 0 ? "arguments" : "keys";
    return { path, message: `needs one of these ${noun}: ${names.join(", ")}` };
  }
  // Each form is only a type: say which types work.
  if (groups.every((g) => alone(g)?.keyword === "type" && alone(g)?.instancePath === error.instancePath)) {
    const types = groups.map((g) => (paramsOf(g) as { type?: unknown }).type);
    return { path, message: `must be ${typeNames(types.flat())} ${got}` };
  }
  // The branch with the fewest problems is the closest; only its first few are rendered.
  const level = (tree.depth[at] as number) + 1;
  const problems = groups.map((g) => problemsOf(tree, g, level));
  const closest = problems.reduce((a, b) => (b.length < a.length ? b : a));
  const { hints, more } = hintsOf(tree, closest, root, MAX_CLOSEST);
  const shown = hints.map((h) => (h.path.length > path.length ? `${formatPath(h.path)}: ${h.message}` : h.message));
  if (more > 0) shown.push(`and ${plural(more, "more problem")}`);
  return { path, message: `does not match any allowed form; closest: ${shown.join("; ")}` };
}

function keywordHint(error: ErrorObject, root: unknown): Hint {
  const path = keysOf(error.instancePath, root);
  const data = (error as { data?: unknown }).data;
  const got = `(got ${describeValue(data)})`;
  const p = error.params as Record<string, unknown>;
  const parent = (error as { parentSchema?: Schema }).parentSchema ?? {};
  switch (error.keyword) {
    case "required":
    case "dependentRequired": {
      const name = String(p.missingProperty);
      const sub = (parent.properties as Record<string, Schema> | undefined)?.[name];
      const expected = sub && typeof sub.type !== "undefined" ? ` (${typeNames(sub.type)})` : "";
      const when = error.keyword === "dependentRequired" ? ` when ${JSON.stringify(p.property)} is given` : "";
      return { path: [...path, name], message: `is required${when}${expected}` };
    }
    case "type":
      return { path, message: `must be ${typeNames(p.type)} ${got}` };
    case "enum": {
      const values = (p.allowedValues as unknown[]) ?? [];
      return {
        path,
        message: `must be ${values.length === 1 ? "" : "one of "}${values.map(quote).join(", ")} ${got}`,
      };
    }
    case "const":
      return { path, message: `must be ${quote(p.allowedValue)} ${got}` };
    case "maximum":
      return { path, message: `must be at most ${p.limit} ${got}` };
    case "exclusiveMaximum":
      return { path, message: `must be less than ${p.limit} ${got}` };
    case "minimum":
      return { path, message: `must be at least ${p.limit} ${got}` };
    case "exclusiveMinimum":
      return { path, message: `must be greater than ${p.limit} ${got}` };
    case "multipleOf":
      return { path, message: `must be a multiple of ${p.multipleOf} ${got}` };
    case "maxLength":
      return { path, message: `must be at most ${plural(Number(p.limit), "character")} (got ${lengthOf(data)})` };
    case "minLength":
      if (Number(p.limit) === 1) return { path, message: "must not be empty" };
      return { path, message: `must be at least ${plural(Number(p.limit), "character")} (got ${lengthOf(data)})` };
    case "maxItems":
      return { path, message: `must have at most ${plural(Number(p.limit), "item")} (got ${lengthOf(data)})` };
    case "minItems":
      return { path, message: `must have at least ${plural(Number(p.limit), "item")} (got ${lengthOf(data)})` };
    case "maxProperties":
      return { path, message: `must have at most ${plural(Number(p.limit), "key")}` };
    case "minProperties":
      return { path, message: `must have at least ${plural(Number(p.limit), "key")}` };
    case "uniqueItems":
      return { path, message: `must not repeat an item (items ${p.j} and ${p.i} are the same)` };
    case "pattern":
      return { path, message: `must match the pattern ${String(p.pattern)} ${got}` };
    case "format": {
      const format = String(p.format);
      return { path, message: `must be ${FORMAT_NAMES[format] ?? `a valid ${format}`} ${got}` };
    }
    case "additionalProperties":
    case "unevaluatedProperties": {
      const key = String(p.additionalProperty ?? p.unevaluatedProperty);
      return {
        path: [...path, key],
        message: unknownKeyMessage(
          key,
          Object.keys((parent.properties as Schema | undefined) ?? {}),
          path.length === 0,
        ),
      };
    }
    case "not":
      return { path, message: `must not match the excluded form ${got}` };
    case "false schema":
      return { path, message: `is not allowed here ${got}` };
    default:
      return { path, message: `${error.message ?? "is invalid"} ${got}` };
  }
}

function lengthOf(data: unknown): string {
  if (typeof data === "string" || Array.isArray(data)) return String(data.length);
  return describeValue(data);
}

/** Ajv's errors for `root` as hint issues (C6): at most `limit` rendered, `more` counts the rest. */
export function issuesFromAjv(
  errors: readonly ErrorObject[],
  root: unknown,
  limit: number,
): { issues: ValidationIssue[]; more: number } {
  const tree = treeOf(errors);
  const { hints, more } = hintsOf(tree, problemsOf(tree, range(0, errors.length), 0), root, limit);
  return { issues: hints.map((h) => ({ path: formatPath(h.path), message: h.message })), more };
}

function setAt(root: unknown, path: readonly PropertyKey[], value: unknown): void {
  let at = root as Record<PropertyKey, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<PropertyKey, unknown>;
  const last = path[path.length - 1] as PropertyKey;
  Object.defineProperty(at, last, { value, enumerable: true, writable: true, configurable: true });
}

function objectAt(root: unknown, path: readonly PropertyKey[]): Record<string, unknown> {
  let at = root as Record<PropertyKey, unknown>;
  for (const key of path) at = at[key] as Record<PropertyKey, unknown>;
  return at as Record<string, unknown>;
}

/** The form of `text` that a `type` error asks for, when exactly one reading works. */
function typedFrom(text: string, type: unknown): { value: unknown; kind: Coercion["kind"] } | undefined {
  const types = Array.isArray(type) ? type.map(String) : String(type).split(",");
  const n = numberFrom(text);
  if (n !== undefined && (types.includes("number") || (types.includes("integer") && Number.isInteger(n)))) {
    return { value: n, kind: "number" };
  }
  const lower = text.toLowerCase();
  if (types.includes("boolean") && (lower === "true" || lower === "false")) {
    return { value: lower === "true", kind: "boolean" };
  }
  for (const kind of ["object", "array"] as const) {
    if (!types.includes(kind)) continue;
    const parsed = jsonFrom(text, kind);
    if (parsed !== undefined) return { value: parsed, kind: "json" };
  }
  return undefined;
}

/** The keywords whose errors can point at a slip to take. */
const COERCIBLE = new Set(["type", "enum", "additionalProperties"]);

/**
 * The arguments with the slips Ajv's errors point at taken (a number, boolean, object or array
 * sent as text, an enum value in another case, an argument name in another case or with other
 * separators), or undefined when none applies. `sent` is not changed.
 */
export function coerceFromAjv(
  errors: readonly ErrorObject[],
  sent: unknown,
): { value: unknown; coercions: Coercion[] } | undefined {
  const tree = treeOf(errors);
  const slips = problemsOf(tree, range(0, errors.length), 0)
    .map((i) => errors[i] as ErrorObject)
    .filter((e) => COERCIBLE.has(e.keyword) && (e.keyword === "additionalProperties" || typeof e.data === "string"));
  if (slips.length === 0) return undefined;
  const value = structuredClone(sent);
  const coercions: Coercion[] = [];
  for (const error of slips) {
    const path = keysOf(error.instancePath, value);
    const data = (error as { data?: unknown }).data;
    const p = error.params as Record<string, unknown>;
    if (error.keyword === "type" && typeof data === "string") {
      const typed = typedFrom(data, p.type);
      if (typed === undefined || path.length === 0) continue;
      setAt(value, path, typed.value);
      coercions.push({ path: formatPath(path), kind: typed.kind, from: "string" });
    } else if (error.keyword === "enum" && typeof data === "string" && path.length > 0) {
      const lower = data.toLowerCase();
      const same = ((p.allowedValues as unknown[]) ?? []).filter(
        (v) => typeof v === "string" && v.toLowerCase() === lower,
      );
      if (same.length !== 1) continue;
      setAt(value, path, same[0]);
      coercions.push({ path: formatPath(path), kind: "enum_case", from: "string" });
    } else if (error.keyword === "additionalProperties") {
      const key = String(p.additionalProperty);
      const parent = (error as { parentSchema?: Schema }).parentSchema ?? {};
      const target = objectAt(value, path);
      const known = Object.keys((parent.properties as Schema | undefined) ?? {});
      const matches = known.filter((name) => nameKey(name) === nameKey(key) && !Object.hasOwn(target, name));
      if (matches.length !== 1) continue;
      const name = matches[0] as string;
      setAt(target, [name], target[key]);
      delete target[key];
      coercions.push({ path: formatPath([...path, name]), kind: "argument_name", from: key });
    }
  }
  return coercions.length === 0 ? undefined : { value, coercions };
}
