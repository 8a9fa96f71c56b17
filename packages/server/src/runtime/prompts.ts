import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import type { AnyPrompt, AuthInfo, RequestContext } from "@toolshed/schema";
import { toPromptResult } from "@toolshed/schema/internal";
import { ACCESS_HIDDEN, insufficientScopeError } from "../access.js";
import type { InputRound } from "../input-round.js";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import { INPUT_REQUIRED, type MiddlewareFrame } from "../middleware.js";
import { capped, guard, issuesText, through } from "./guard.js";
import type { RuntimeParts } from "./parts.js";
import type { PromptListing } from "./registry.js";

/** prompts/list, of the prompts this caller may use. */
export function listPrompts(parts: RuntimeParts, authInfo?: AuthInfo): PromptListing[] {
  const { registry, access } = parts;
  if (!access.filtersByCaller) return registry.promptListings;
  const prompts = [...registry.prompts.values()];
  return registry.promptListings.filter((_, i) => access.visible(authInfo, prompts[i] as AnyPrompt));
}

/** A prompt this caller may see, or the unknown-prompt error; -32003 when its token lacks a scope. */
export function promptFor(
  parts: RuntimeParts,
  name: string,
  auth: AuthInfo | undefined,
  action: string,
  known: boolean,
): AnyPrompt {
  const prompt = parts.registry.prompts.get(name);
  const access = prompt === undefined ? ACCESS_HIDDEN : parts.access.accessTo(auth, prompt);
  if (!prompt || (!access.ok && access.hidden)) {
    if (!known) throw new JsonRpcError(JsonRpcCode.InvalidParams, `Unknown prompt: ${name}`);
    const names = listPrompts(parts, auth).map((p) => p.name);
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      `Unknown prompt: ${name}. Known prompts: ${names.length > 0 ? names.join(", ") : "none"}`,
    );
  }
  if (!access.ok) throw insufficientScopeError(action, access, auth);
  return prompt;
}

/** What one prompts/get brings: `frame` runs it through middleware, `round` is its 2026-07-28 input round. */
export type PromptCall = [
  name: string,
  args: unknown,
  ctx: RequestContext,
  frame?: MiddlewareFrame,
  round?: InputRound,
];

/** prompts/get for the caller in `ctx.authInfo` (hidden prompts are unknown; missing scopes -32003). */
export async function getPrompt(parts: RuntimeParts, ...call: PromptCall): Promise<GetPromptResult> {
  return capped(
    parts,
    `prompts/get ${call[0]}`,
    await render(parts, ...call),
    "get it again with arguments that select less, or raise the server's result limit",
  );
}

async function render(parts: RuntimeParts, ...call: PromptCall): Promise<GetPromptResult> {
  const [name, args, ctx, frame, round] = call;
  const prompt = promptFor(parts, name, ctx.authInfo, `prompts/get ${name}`, true);
  const parsed = prompt.parseArgs(args);
  if (!parsed.success) {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      `Invalid arguments for prompt ${name}:\n${issuesText(parsed.issues)}`,
    );
  }
  const what = `prompt ${name}`;
  if (frame === undefined) {
    const body = await guard(parts.logger, what, () => prompt.render(parsed.data, ctx));
    return toPromptResult(prompt, body);
  }
  const rendered = async () =>
    toPromptResult(prompt, await guard(parts.logger, what, () => prompt.render(parsed.data, ctx)));
  // A prompt is not raced by runTool: in a 2026-07-28 round, a question ends the wait for it
  // here, so its middleware's next() settles (with INPUT_REQUIRED) instead of hanging.
  const body = round
    ? () => Promise.race([rendered(), round.stopped.then(() => INPUT_REQUIRED as unknown as GetPromptResult)])
    : rendered;
  return through(parts, frame, "prompt", prompt, undefined, parsed.data, what, body);
}
