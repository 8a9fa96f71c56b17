import { didYouMean, type ValidationIssue } from "@toolshed/errors";
import { failed } from "./arguments.js";
import { checkName } from "./checks.js";
import { DefinitionError } from "./definition-error.js";
import type { JsonSchema } from "./json-schema.js";
import { type AnyTool, definePack, type Pack } from "./pack.js";
import { checkRequiredScopes } from "./scopes.js";

/** How one argument of a tool is reshaped. */
export interface ArgumentChange {
  /** What the model reads about it instead. */
  description?: string;
  /** A value it always has: the argument leaves the published schema, and a call that sends it is refused. */
  value?: unknown;
  /** Narrower bounds than the tool's own (a wider one is a DefinitionError): numbers. */
  minimum?: number;
  maximum?: number;
  /** Strings, in characters. */
  minLength?: number;
  maxLength?: number;
  /** Lists, in items. */
  minItems?: number;
  maxItems?: number;
}

/** How one tool is reshaped; the published schema and the argument check change together. */
export interface ToolChange {
  /** Leave the tool out: it is in no list, hint or metric. */
  hide?: boolean;
  /** Its new name (before the pack's prefix). */
  name?: string;
  title?: string;
  description?: string;
  /** Changes to its top-level arguments, by name. */
  arguments?: Record<string, ArgumentChange>;
}

/** How a pack is reshaped (see {@link reshapePack}). */
export interface PackChange {
  /** Put before every tool's name (`kb_` makes `get_note` into `kb_get_note`). */
  prefix?: string;
  /** Scopes a caller's token needs for everything in the pack, on top of its own. */
  scopes?: readonly string[];
  /** Changes to its tools, by their names in the pack. */
  tools?: Record<string, ToolChange>;
}

const BOUNDS = {
  minimum: { types: ["number", "integer"], lower: true, words: (n: number) => `${n}` },
  maximum: { types: ["number", "integer"], lower: false, words: (n: number) => `${n}` },
  minLength: { types: ["string"], lower: true, words: (n: number) => `${n} character${n === 1 ? "" : "s"}` },
  maxLength: { types: ["string"], lower: false, words: (n: number) => `${n} character${n === 1 ? "" : "s"}` },
  minItems: { types: ["array"], lower: true, words: (n: number) => `${n} item${n === 1 ? "" : "s"}` },
  maxItems: { types: ["array"], lower: false, words: (n: number) => `${n} item${n === 1 ? "" : "s"}` },
} as const;
type BoundName = keyof typeof BOUNDS;

function typesOf(schema: JsonSchema): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

/** The size a bound measures: the number, the characters (code points) or the items. */
function measure(bound: BoundName, value: unknown): number | undefined {
  if (bound === "minimum" || bound === "maximum") return typeof value === "number" ? value : undefined;
  if (bound === "minLength" || bound === "maxLength") return typeof value === "string" ? [...value].length : undefined;
  return Array.isArray(value) ? value.length : undefined;
}

function hint(bound: BoundName, limit: number, got: number, value: unknown): string {
  const { lower, words } = BOUNDS[bound];
  const what = lower ? "at least" : "at most";
  if (bound === "minimum" || bound === "maximum") return `must be ${what} ${limit} (got ${JSON.stringify(value)})`;
  const verb = bound === "minItems" || bound === "maxItems" ? "must have" : "must be";
  return `${verb} ${what} ${words(limit)} (got ${got})`;
}

/**
 * A tool reshaped: renamed, re-described, with arguments re-described, fixed or given narrower
 * bounds. What the model reads (tools/list) and what is enforced change together; the handler,
 * output, annotations and scopes are the tool's own.
 */
export function reshapeTool(tool: AnyTool, change: ToolChange): AnyTool {
  const name = change.name ?? tool.name;
  const label = `Reshaped tool "${tool.name}"`;
  checkName(label, name);
  const inputSchema = structuredClone(tool.inputSchema) as JsonSchema & {
    type: "object";
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  const properties = inputSchema.properties ?? {};
  const fixed = new Map<string, unknown>();
  const narrowed: { arg: string; bound: BoundName; limit: number }[] = [];
  for (const [arg, argChange] of Object.entries(change.arguments ?? {})) {
    const property = Object.hasOwn(properties, arg) ? properties[arg] : undefined;
    if (property === undefined) {
      const meant = didYouMean(arg, Object.keys(properties));
      throw new DefinitionError(
        label,
        "C13",
        `arguments.${arg} names no argument of the tool${meant === undefined ? "" : `; did you mean "${meant}"?`} Its arguments: ${Object.keys(properties).join(", ") || "none"}`,
      );
    }
    if (argChange.description !== undefined) {
      if (typeof argChange.description !== "string" || argChange.description.trim() === "") {
        throw new DefinitionError(
          label,
          "C13",
          `arguments.${arg}.description must be text saying what the argument is`,
        );
      }
      property.description = argChange.description;
    }
    for (const bound of Object.keys(BOUNDS) as BoundName[]) {
      const limit = argChange[bound];
      if (limit === undefined) continue;
      const spec = BOUNDS[bound];
      if (!typesOf(property).some((t) => (spec.types as readonly string[]).includes(t))) {
        throw new DefinitionError(
          label,
          "C13",
          `arguments.${arg}.${bound} applies to ${spec.types.join(" or ")} arguments; ${arg} is ${typesOf(property).join(" or ") || "not typed"}`,
        );
      }
      if (
        typeof limit !== "number" ||
        !Number.isFinite(limit) ||
        (bound !== "minimum" && bound !== "maximum" && (!Number.isInteger(limit) || limit < 0))
      ) {
        throw new DefinitionError(
          label,
          "C13",
          `arguments.${arg}.${bound} must be a number${bound.startsWith("m") && bound !== "minimum" && bound !== "maximum" ? " of at least 0" : ""}, got ${JSON.stringify(limit)}`,
        );
      }
      const own = property[bound];
      if (typeof own === "number" && (spec.lower ? limit < own : limit > own)) {
        throw new DefinitionError(
          label,
          "C13",
          `arguments.${arg}.${bound} ${limit} would widen the tool's own ${bound} ${own}; a transform can only narrow a bound`,
        );
      }
      property[bound] = limit;
      narrowed.push({ arg, bound, limit });
    }
    if ("value" in argChange) {
      fixed.set(arg, argChange.value);
      delete properties[arg];
      if (Array.isArray(inputSchema.required)) {
        inputSchema.required = inputSchema.required.filter((r) => r !== arg);
        if (inputSchema.required.length === 0) delete inputSchema.required;
      }
    }
  }
  // A fixed value must be one the tool takes: checked once now, not on every call.
  if (fixed.size > 0) {
    const probe = tool.parseArguments(Object.fromEntries(fixed), { coerce: false });
    if (!probe.success) {
      const bad = probe.issues.filter((i) => fixed.has(i.path.split(/[.[]/)[0] ?? ""));
      if (bad.length > 0) {
        throw new DefinitionError(
          label,
          "C13",
          `the fixed value of ${bad.map((i) => `${i.path} ${i.message}`).join("; ")}`,
        );
      }
    }
  }
  const description = change.description ?? tool.description;
  const title = change.title ?? tool.title;
  const listing = {
    ...tool.listing,
    name,
    description,
    ...(title === undefined ? {} : { title }),
    inputSchema,
  };
  const known = Object.keys(properties);
  const parseArguments: AnyTool["parseArguments"] = (args, options) => {
    const sent = args === undefined || args === null ? {} : args;
    if (typeof sent !== "object" || Array.isArray(sent)) return tool.parseArguments(args, options);
    const issues: ValidationIssue[] = [];
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(sent)) {
      if (fixed.has(key)) {
        issues.push({
          path: key,
          message: `unknown argument; this server sets ${key} itself. Valid arguments: ${known.join(", ") || "none"}`,
        });
        continue;
      }
      Object.defineProperty(rest, key, { value, enumerable: true, writable: true, configurable: true });
    }
    for (const [key, value] of fixed) rest[key] = structuredClone(value);
    const parsed = tool.parseArguments(rest, options);
    if (!parsed.success) return failed([...issues, ...parsed.issues]);
    const data = parsed.data as Record<string, unknown>;
    for (const { arg, bound, limit } of narrowed) {
      const got = measure(bound, data[arg]);
      if (got === undefined) continue;
      if (BOUNDS[bound].lower ? got < limit : got > limit) {
        issues.push({ path: arg, message: hint(bound, limit, got, data[arg]) });
      }
    }
    return issues.length > 0 ? failed(issues) : parsed;
  };
  return Object.freeze({
    ...tool,
    name,
    title,
    description,
    inputSchema,
    listing,
    headerParams: tool.headerParams.filter((p) => !fixed.has(p.path[0] ?? "")),
    parseArguments,
  });
}

/**
 * A pack with its tools reshaped (see {@link reshapeTool}), hidden ones left out, a prefix before
 * every tool's name and scopes on top of its own. A change naming no tool of the pack, or two
 * tools ending up with one name, is a DefinitionError that says what would work.
 */
export function reshapePack(pack: Pack, change: PackChange): Pack {
  const label = `Pack "${pack.name}"`;
  const names = pack.tools.map((t) => t.name);
  for (const name of Object.keys(change.tools ?? {})) {
    if (!names.includes(name)) {
      const meant = didYouMean(name, names);
      throw new DefinitionError(
        label,
        "C13",
        `tools.${name} names no tool of the pack${meant === undefined ? "" : `; did you mean "${meant}"?`} Its tools: ${names.join(", ")}`,
      );
    }
  }
  const prefix = change.prefix ?? "";
  const tools: AnyTool[] = [];
  const renamed = new Map<string, string>();
  for (const tool of pack.tools) {
    const toolChange = change.tools?.[tool.name] ?? {};
    if (toolChange.hide === true) continue;
    const name = `${prefix}${toolChange.name ?? tool.name}`;
    if (name !== tool.name) renamed.set(tool.name, name);
    const changed = Object.keys(toolChange).length > 0 || name !== tool.name;
    tools.push(changed ? reshapeTool(tool, { ...toolChange, name }) : tool);
  }
  // Descriptions that name a renamed tool name it as the model now sees it.
  if (renamed.size > 0) {
    const pattern = new RegExp(`\\b(${[...renamed.keys()].map(escapeRegExp).join("|")})\\b`, "g");
    for (const [i, tool] of tools.entries()) {
      const description = tool.description.replace(pattern, (old) => renamed.get(old) ?? old);
      if (description !== tool.description) tools[i] = reshapeTool(tool, { description });
    }
  }
  const scopes = checkRequiredScopes(`${label} (scopes)`, change.scopes);
  // definePack checks the names are unique, now that they may have changed.
  return definePack({
    name: pack.name,
    tools,
    resources: [...pack.resources, ...pack.resourceTemplates],
    prompts: pack.prompts,
    ...(pack.cache === undefined ? {} : { cache: pack.cache }),
    requiredScopes: [...new Set([...pack.requiredScopes, ...scopes])],
    close: pack.close,
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
