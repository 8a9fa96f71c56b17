import type { RuleId } from "./rules.js";
import { cut } from "./safe-text.js";
import {
  definitionsOf,
  isSchema,
  MAX_DEPTH,
  MAX_NODES,
  refCycle,
  resolveRef,
  type Schema,
  typesOf,
  walkSchema,
} from "./schema-walk.js";
import type { Finding } from "./types.js";

/** The tool name rule of CONTRACT.md C13 (and of the MCP specification). */
export const NAME_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
/** Shorter than this, a description rarely tells a model when to use the tool. */
export const MIN_DESCRIPTION = 20;
/** Longer than this, a description costs every conversation many tokens. */
export const MAX_DESCRIPTION = 2000;

/** Formats whose values have a bounded length, so a string with one needs no maxLength. */
const BOUNDED_FORMATS = new Set(["date-time", "date", "time", "uuid", "ipv4", "ipv6"]);
/** Formats that draft-07 and 2020-12 validators both know. */
const PORTABLE_FORMATS = new Set([
  ...BOUNDED_FORMATS,
  "duration",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uri-template",
  "json-pointer",
  "relative-json-pointer",
  "regex",
]);
/** Keywords that exist in only one of draft-07 and 2020-12, so one kind of client misreads them. */
const ONE_DRAFT_ONLY: Record<string, string> = {
  prefixItems: "2020-12 only (a draft-07 client ignores it)",
  additionalItems: "draft-07 only (removed in 2020-12)",
  dependencies: "draft-07 only (split into dependentRequired/dependentSchemas in 2020-12)",
  dependentRequired: "2019-09+ only (a draft-07 client ignores it)",
  dependentSchemas: "2019-09+ only (a draft-07 client ignores it)",
  unevaluatedProperties: "2019-09+ only (a draft-07 client ignores it)",
  unevaluatedItems: "2019-09+ only (a draft-07 client ignores it)",
  minContains: "2019-09+ only (a draft-07 client ignores it)",
  maxContains: "2019-09+ only (a draft-07 client ignores it)",
  $anchor: "2019-09+ only",
  $dynamicRef: "2020-12 only",
  $dynamicAnchor: "2020-12 only",
  $recursiveRef: "2019-09 only",
  $recursiveAnchor: "2019-09 only",
  $vocabulary: "2019-09+ only",
  nullable: "OpenAPI, not JSON Schema (use anyOf with type null)",
};
/** Keywords whose values are instance data, never schemas, so their contents are not checked. */
const DATA_KEYS = new Set(["default", "const", "enum", "examples"]);

export interface ToolDefinition {
  name?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}
export interface PromptDefinition {
  name?: unknown;
  description?: unknown;
  arguments?: unknown;
}
export interface ResourceDefinition {
  name?: unknown;
  uri?: unknown;
  uriTemplate?: unknown;
  description?: unknown;
}

export type Findings = Map<RuleId, Finding[]>;

function add(findings: Findings, rule: RuleId, finding: Finding): void {
  const list = findings.get(rule) ?? [];
  list.push(finding);
  findings.set(rule, list);
}

/** A value as JSON, cut short: names and schemas come from the server and can be any size. */
const show = (value: unknown): string => {
  const text = typeof value === "string" ? JSON.stringify(value.slice(0, 200)) : JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 120 ? `${text.slice(0, 119)}…` : text;
};

/** Checks published definitions against rules D1–D10; only problems become findings. */
export function checkDefinitions(
  tools: ToolDefinition[],
  prompts: PromptDefinition[] = [],
  resources: ResourceDefinition[] = [],
): Findings {
  const findings: Findings = new Map();
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    const name = typeof tool.name === "string" ? tool.name.slice(0, 200) : `tools[${index}]`;
    checkName(findings, tool.name, name, seen);
    checkDescription(findings, tool.description, name);
    checkInput(findings, tool.inputSchema, name);
    checkAnnotations(findings, tool.annotations, name);
    checkOutput(findings, tool.outputSchema, name);
  });
  checkPromptsAndResources(findings, prompts, resources);
  return findings;
}

function checkName(findings: Findings, raw: unknown, name: string, seen: Set<string>): void {
  if (typeof raw !== "string" || !NAME_PATTERN.test(raw)) {
    add(findings, "D1", { status: "fail", subject: name, message: `name ${show(raw)} does not match ${NAME_PATTERN}` });
  } else if (seen.has(raw)) {
    add(findings, "D1", { status: "fail", subject: name, message: "name is published more than once" });
  }
  if (typeof raw === "string") seen.add(raw);
}

function checkDescription(findings: Findings, description: unknown, name: string): void {
  if (typeof description !== "string" || description.trim() === "") {
    add(findings, "D2", { status: "fail", subject: name, message: "no description: a model cannot tell what it does" });
  } else if (description.trim().length < MIN_DESCRIPTION) {
    add(findings, "D2", {
      status: "warn",
      subject: name,
      message: `description is ${description.trim().length} chars (${show(description)}); say what it does and when to use it (at least ${MIN_DESCRIPTION})`,
    });
  } else if (description.length > MAX_DESCRIPTION) {
    add(findings, "D2", {
      status: "warn",
      subject: name,
      message: `description is ${description.length} chars; over ${MAX_DESCRIPTION} costs every conversation tokens`,
    });
  }
}

/** A node's description, on itself, on the definition it refers to, or on a branch of a union. */
function describedAs(node: Schema, definitions: Record<string, Schema>, depth = 0): boolean {
  if (depth > 8) return false;
  if (typeof node.description === "string" && node.description.trim() !== "") return true;
  const target = resolveRef(node.$ref, definitions);
  if (target && target !== node && typeof target.description === "string" && target.description.trim() !== "")
    return true;
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const branches = node[key];
    if (Array.isArray(branches) && branches.some((b) => isSchema(b) && describedAs(b, definitions, depth + 1)))
      return true;
  }
  return false;
}

function checkInput(findings: Findings, schema: unknown, name: string): void {
  if (!isSchema(schema) || schema.type !== "object") {
    add(findings, "D4", {
      status: "fail",
      subject: name,
      message: `inputSchema must be {"type": "object", …}, got ${show(isSchema(schema) ? { type: schema.type } : schema)}`,
    });
    if (!isSchema(schema)) return;
  }
  const definitions = definitionsOf(schema);
  const undescribed: string[] = [];
  const open: string[] = [];
  const limit = walkSchema(schema, ({ node, path, isProperty }) => {
    if (isProperty && !describedAs(node, definitions)) undescribed.push(path);
    if (typesOf(node).includes("object") || isSchema(node.properties)) {
      if (node.additionalProperties === undefined || node.additionalProperties === true) open.push(path || "(root)");
    }
    checkBounds(findings, node, path, name);
  });
  if (limit.tooDeep !== undefined)
    add(findings, "D4", {
      status: "fail",
      subject: name,
      message: `inputSchema nests deeper than ${MAX_DEPTH} levels (at ${cut(limit.tooDeep, 60)}); the audit checked ${MAX_DEPTH} levels, and clients may refuse it`,
    });
  if (limit.tooMany)
    add(findings, "D4", {
      status: "fail",
      subject: name,
      message: `inputSchema has more than ${MAX_NODES} subschemas; the audit checked the first ${MAX_NODES}, and each one costs a model tokens`,
    });
  const cycle = refCycle(schema);
  if (cycle)
    add(findings, "D4", {
      status: "fail",
      subject: name,
      message: `$ref cycle ${[...cycle, cycle[0]].join(" → ")}: it never reaches a schema, so no validator can resolve it`,
    });
  if (undescribed.length > 0)
    add(findings, "D3", { status: "fail", subject: name, message: `no description on ${undescribed.join(", ")}` });
  if (open.length > 0)
    add(findings, "D5", {
      status: "fail",
      subject: name,
      message: `additionalProperties is not false at ${open.join(", ")}: a misspelled argument is silently ignored`,
    });
  checkPortable(findings, schema, name, "inputSchema");
}

function checkBounds(findings: Findings, node: Schema, path: string, name: string): void {
  if (node.enum !== undefined || node.const !== undefined || typeof node.$ref === "string") return;
  const at = path || "(root)";
  const types = typesOf(node);
  const branches = ["anyOf", "oneOf", "allOf", "not"].some((k) => node[k] !== undefined);
  if (types.length === 0) {
    if (!branches && path !== "" && !isSchema(node.properties))
      add(findings, "D6", { status: "fail", subject: name, message: `${at} accepts any value (no type)` });
    return;
  }
  const num = (key: string) => typeof node[key] === "number";
  if (types.includes("string") && !num("maxLength") && !BOUNDED_FORMATS.has(String(node.format))) {
    add(findings, "D6", { status: "fail", subject: name, message: `${at} is a string with no maxLength or enum` });
  }
  if (types.includes("number") || types.includes("integer")) {
    if (!num("maximum") && !num("exclusiveMaximum"))
      add(findings, "D6", { status: "fail", subject: name, message: `${at} is a number with no maximum` });
    else if (!num("minimum") && !num("exclusiveMinimum"))
      add(findings, "D6", { status: "warn", subject: name, message: `${at} is a number with no minimum` });
  }
  if (types.includes("array") && !num("maxItems")) {
    add(findings, "D6", { status: "fail", subject: name, message: `${at} is an array with no maxItems` });
  }
  if (types.includes("object") && isSchema(node.additionalProperties) && !num("maxProperties")) {
    add(findings, "D6", { status: "warn", subject: name, message: `${at} is a map with no maxProperties` });
  }
}

/** C5: only keywords that mean the same to draft-07 and 2020-12 clients. */
function checkPortable(findings: Findings, schema: Schema, name: string, which: string): void {
  const problems: string[] = [];
  if (schema.$schema !== undefined)
    problems.push(`$schema ${show(schema.$schema)} (strict clients of the other draft refuse it)`);
  let nodes = 0;
  const visit = (node: unknown, at: string, depth = 0) => {
    // Bounded like walkSchema (a subschema is about two JSON levels); D4 reports what is cut.
    if (depth > 2 * MAX_DEPTH + 2 || ++nodes > 4 * MAX_NODES) return;
    if (Array.isArray(node)) {
      for (const [i, n] of node.entries()) visit(n, `${at}/${i}`, depth + 1);
      return;
    }
    if (!isSchema(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const here = `${at}/${key}`;
      if (DATA_KEYS.has(key)) continue;
      if (key in ONE_DRAFT_ONLY) problems.push(`${here}: ${key} is ${ONE_DRAFT_ONLY[key]}`);
      if (key === "items" && Array.isArray(value))
        problems.push(`${here}: items as a list is a tuple in draft-07 and invalid in 2020-12`);
      if (key === "$ref") {
        if (typeof value !== "string" || !value.startsWith("#"))
          problems.push(`${here}: $ref ${show(value)} points outside the schema`);
        const siblings = Object.keys(node).filter(
          (k) => !["$ref", "description", "title", "default", "examples"].includes(k),
        );
        if (siblings.length > 0)
          problems.push(`${here}: $ref next to ${siblings.join(", ")} (draft-07 ignores them, 2020-12 applies them)`);
      }
      if (key === "$defs") problems.push(`${here}: $defs is 2019-09+ (draft-07 names them definitions)`);
      if ((key === "exclusiveMinimum" || key === "exclusiveMaximum") && typeof value === "boolean")
        problems.push(`${here}: boolean ${key} is draft-04`);
      if (key === "format" && typeof value === "string" && !PORTABLE_FORMATS.has(value))
        problems.push(`${here}: format ${show(value)} is not a standard format`);
      if (key === "type" && Array.isArray(value))
        problems.push(`${here}: a list of types (strict validators refuse it; use anyOf)`);
      if (key === "properties" || key === "definitions" || key === "$defs" || key === "patternProperties") {
        if (isSchema(value)) for (const [k, sub] of Object.entries(value)) visit(sub, `${here}/${k}`, depth + 2);
        continue;
      }
      visit(value, here, depth + 1);
    }
  };
  visit(schema, "");
  if (problems.length > 0) {
    const status = problems.every((p) => p.includes("format") || p.includes("list of types") || p.includes("$defs"))
      ? "warn"
      : "fail";
    add(findings, "D7", { status, subject: name, message: `${which}: ${problems.join("; ")}` });
  }
}

function checkAnnotations(findings: Findings, annotations: unknown, name: string): void {
  if (!isSchema(annotations) || annotations.readOnlyHint === undefined) {
    add(findings, "D8", {
      status: "fail",
      subject: name,
      message: "no readOnlyHint: clients must assume it writes, and read-only modes cannot offer it",
    });
    return;
  }
  for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
    const value = annotations[key];
    if (value !== undefined && typeof value !== "boolean")
      add(findings, "D8", { status: "fail", subject: name, message: `${key} is ${show(value)}, not a boolean` });
  }
  if (annotations.readOnlyHint === true && annotations.destructiveHint === true) {
    add(findings, "D8", { status: "fail", subject: name, message: "readOnlyHint: true with destructiveHint: true" });
  }
  if (annotations.readOnlyHint === false) {
    const missing = ["destructiveHint", "idempotentHint"].filter((k) => annotations[k] === undefined);
    if (missing.length > 0)
      add(findings, "D8", {
        status: "warn",
        subject: name,
        message: `writes but has no ${missing.join(" or ")} (clients assume destructive, not idempotent)`,
      });
  }
}

function checkOutput(findings: Findings, schema: unknown, name: string): void {
  if (schema === undefined) {
    add(findings, "D9", {
      status: "warn",
      subject: name,
      message: "no outputSchema: results are text a model must parse",
    });
    return;
  }
  if (!isSchema(schema) || schema.type !== "object") {
    add(findings, "D9", {
      status: "fail",
      subject: name,
      message: `outputSchema must have type "object", got ${show(isSchema(schema) ? schema.type : schema)}`,
    });
    return;
  }
  checkPortable(findings, schema, name, "outputSchema");
}

function checkPromptsAndResources(
  findings: Findings,
  prompts: PromptDefinition[],
  resources: ResourceDefinition[],
): void {
  for (const prompt of prompts) {
    const name = typeof prompt.name === "string" ? prompt.name : show(prompt.name);
    if (typeof prompt.name !== "string" || !NAME_PATTERN.test(prompt.name))
      add(findings, "D10", {
        status: "fail",
        subject: `prompt ${name}`,
        message: `name ${name} does not match ${NAME_PATTERN}`,
      });
    if (typeof prompt.description !== "string" || prompt.description.trim() === "")
      add(findings, "D10", { status: "warn", subject: `prompt ${name}`, message: "no description" });
    const args = Array.isArray(prompt.arguments) ? prompt.arguments : [];
    const undescribed = args
      .filter((a) => isSchema(a) && (typeof a.description !== "string" || a.description.trim() === ""))
      .map((a) => String((a as Schema).name));
    if (undescribed.length > 0)
      add(findings, "D10", {
        status: "warn",
        subject: `prompt ${name}`,
        message: `no description on argument ${undescribed.join(", ")}`,
      });
  }
  for (const resource of resources) {
    const label = `resource ${String(resource.uri ?? resource.uriTemplate ?? resource.name)}`;
    if (typeof resource.name !== "string" || resource.name.trim() === "")
      add(findings, "D10", { status: "fail", subject: label, message: "no name" });
    if (typeof resource.description !== "string" || resource.description.trim() === "")
      add(findings, "D10", { status: "warn", subject: label, message: "no description" });
  }
}
