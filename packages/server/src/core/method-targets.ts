import type { Params } from "../params.js";

// The one table of what each MCP method names: access checks, span names and metric attributes,
// and the 2026-07-28 Mcp-Name header all read it, so they cannot disagree about a method.

/** What a method's params name, and who reads it. */
export interface MethodTarget {
  /** What the named definition is; `completion` names a prompt or a template through `params.ref`. */
  readonly kind: "tool" | "prompt" | "resource" | "completion" | "task";
  /** The params field that holds the name or URI. */
  readonly field: "name" | "uri" | "ref" | "taskId";
  /** Access is checked for it before dispatch (a hidden definition is unknown, a missing scope is -32003 or 403). */
  readonly guarded: boolean;
  /** The name is part of the span name and an attribute (gen_ai.tool.name, gen_ai.prompt.name, mcp.resource.uri). */
  readonly traced: boolean;
  /** 2026-07-28: the Mcp-Name header repeats the field. */
  readonly header: boolean;
}

const target = (
  kind: MethodTarget["kind"],
  field: MethodTarget["field"],
  guarded: boolean,
  traced: boolean,
  header: boolean,
): MethodTarget => Object.freeze({ kind, field, guarded, traced, header });

export const METHOD_TARGETS: ReadonlyMap<string, MethodTarget> = new Map([
  ["tools/call", target("tool", "name", true, true, true)],
  ["prompts/get", target("prompt", "name", true, true, true)],
  ["resources/read", target("resource", "uri", true, true, true)],
  ["resources/subscribe", target("resource", "uri", true, true, false)],
  // Leaving a subscription needs no right, so it is not checked.
  ["resources/unsubscribe", target("resource", "uri", false, true, false)],
  ["completion/complete", target("completion", "ref", true, false, false)],
  // The tasks extension: Mcp-Name repeats the task id; a task's owner is checked by the task store.
  ["tasks/get", target("task", "taskId", false, false, true)],
  ["tasks/update", target("task", "taskId", false, false, true)],
  ["tasks/cancel", target("task", "taskId", false, false, true)],
]);

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** The name or URI a request's params give for its method's target (not for `ref`); undefined when absent or not a string. */
export function targetName(method: string, params: unknown): string | undefined {
  const t = METHOD_TARGETS.get(method);
  if (t === undefined || t.field === "ref" || typeof params !== "object" || params === null) return undefined;
  return text((params as Params)[t.field]);
}

/** The definition a guarded request names, as the access check reads it; undefined when it names none. */
export function guardedTarget(
  method: string,
  params: unknown,
): { kind: "tool" | "prompt" | "resource" | "resourceTemplate"; key: string } | undefined {
  const t = METHOD_TARGETS.get(method);
  if (t === undefined || !t.guarded || t.kind === "task" || typeof params !== "object" || params === null)
    return undefined;
  if (t.kind !== "completion") {
    const key = text((params as Params)[t.field]);
    return key === undefined ? undefined : { kind: t.kind, key };
  }
  const ref = (params as Params).ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
  if (typeof ref !== "object" || ref === null) return undefined;
  const key = ref.type === "ref/prompt" ? text(ref.name) : ref.type === "ref/resource" ? text(ref.uri) : undefined;
  if (key === undefined) return undefined;
  return { kind: ref.type === "ref/prompt" ? "prompt" : "resourceTemplate", key };
}
