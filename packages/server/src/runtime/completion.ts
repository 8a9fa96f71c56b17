import type { CompleteResult } from "@modelcontextprotocol/sdk/types.js";
import type { Completer, RequestContext } from "@toolshed/schema";
import { insufficientScopeError } from "../access.js";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import { guard } from "./guard.js";
import type { RuntimeParts } from "./parts.js";
import { promptFor } from "./prompts.js";

const MAX_COMPLETIONS = 100;

export type CompletionRef = { type: string; name?: string; uri?: string };

/** What one completion/complete brings: the reference, the argument being typed, the others already given. */
export type CompletionCall = [
  ref: CompletionRef,
  argument: { name: string; value: string },
  context: Record<string, string>,
  ctx: RequestContext,
];

/** Every value a completer suggests, uncapped; unknown references are -32602. */
export async function completionValues(parts: RuntimeParts, ...call: CompletionCall): Promise<string[]> {
  const [ref, argument, context, ctx] = call;
  let completers: Record<string, Completer | undefined> | undefined;
  const auth = ctx.authInfo;
  if (ref.type === "ref/prompt") {
    const name = ref.name ?? "";
    completers = promptFor(parts, name, auth, `completion/complete ${name}`, false).complete;
  } else if (ref.type === "ref/resource") {
    const uri = ref.uri ?? "";
    const template = parts.registry.templateByUri(uri);
    const definition = template ?? parts.registry.resources.get(uri);
    const unknown = () => new JsonRpcError(JsonRpcCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
    if (definition === undefined) throw unknown();
    const access = parts.access.accessTo(auth, definition);
    if (!access.ok)
      throw access.hidden ? unknown() : insufficientScopeError(`completion/complete ${uri}`, access, auth);
    if (!template) return [];
    completers = template.complete;
  } else {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      `Unknown reference type: ${ref.type}; use ref/prompt or ref/resource`,
    );
  }
  // Own keys only: an argument named "constructor" has no completer.
  const completer = completers && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
  if (typeof completer !== "function") return [];
  return guard(parts.logger, `complete ${argument.name}`, async () => {
    const values = await completer(argument.value, { ...ctx, arguments: context });
    if (!Array.isArray(values)) throw new Error(`completer for ${argument.name} returned ${typeof values}, not a list`);
    return values.filter((v): v is string => typeof v === "string");
  });
}

/** completion/complete: at most 100 values, with the total. */
export async function complete(parts: RuntimeParts, ...call: CompletionCall): Promise<CompleteResult> {
  const all = await completionValues(parts, ...call);
  return {
    completion: { values: all.slice(0, MAX_COMPLETIONS), total: all.length, hasMore: all.length > MAX_COMPLETIONS },
  };
}
