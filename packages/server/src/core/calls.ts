import { type InputRound, runInRounds } from "../input-round.js";
import { optionalObject, requireString } from "../params.js";
import { principalOf } from "../request-state.js";
import type { CancelSignal } from "../run-tool.js";
import { baseContext, questions, toolContext } from "./handler-context.js";
import type { Call, CallScope, CoreParts } from "./types.js";

// tools/call and prompts/get: the two methods whose handlers may ask the client something.

export async function callTool(parts: CoreParts, call: Call): Promise<unknown> {
  const { runtime, hooks } = parts;
  const { params, scope } = call;
  const name = requireString("tools/call", params, "name", "the tool name (a non-empty string)");
  const args = optionalObject("tools/call", params, "arguments") ?? {};
  scope.onToolCall?.(name);
  const view = runtime.viewFor(scope.authInfo);
  // A scope may be a class instance with the listener as a method.
  const onOutcome = scope.onToolOutcome ? scope.onToolOutcome.bind(scope) : parts.onToolOutcome;
  // What the transport checked before dispatch (HTTP's 403 check) is not checked again.
  const checked = scope.access;
  if (!call.envelope) {
    const ctx = toolContext(call, name, undefined, hooks);
    return runtime.callTool(name, args, view, ctx, scope.cancel ?? scope.signal, onOutcome, call.frame, checked);
  }
  return inRounds(parts, call, name, args, (round) =>
    runtime.callTool(name, args, view, toolContext(call, name, round, hooks), round, onOutcome, call.frame, checked),
  );
}

export async function getPrompt(parts: CoreParts, call: Call): Promise<unknown> {
  const { runtime, hooks } = parts;
  const { params } = call;
  const name = requireString("prompts/get", params, "name", "the prompt name (a non-empty string)");
  const args = optionalObject("prompts/get", params, "arguments") ?? {};
  if (!call.envelope) {
    return runtime.getPrompt(
      name,
      args,
      { ...baseContext(call, hooks), ...questions(undefined, call.scope.connection) },
      call.frame,
    );
  }
  return inRounds(parts, call, name, args, (round) =>
    // A prompt is not raced by runTool: the round's stop ends the wait for it.
    Promise.race([
      runtime.getPrompt(name, args, { ...baseContext(call, hooks), ...questions(round, undefined) }, call.frame, round),
      round.stopped,
    ]),
  );
}

/** A round of a multi round-trip request for this call (see runInRounds). */
function inRounds<T>(
  parts: CoreParts,
  call: Call,
  target: string,
  args: unknown,
  run: (round: InputRound) => Promise<T>,
) {
  const { params, scope, method, envelope } = call;
  return runInRounds(
    {
      codec: parts.state,
      binding: () => ({ method, target, args, principal: principalOf(scope.authInfo) }),
      requestState: params.requestState,
      inputResponses: optionalObject(method, params, "inputResponses"),
      capabilities: envelope?.clientCapabilities ?? {},
      signal: scope.cancel ?? lazySignal(scope),
    },
    run,
  );
}

/** The scope's signal as a CancelSignal, read only when a listener is added. */
function lazySignal(scope: CallScope): CancelSignal {
  return {
    get aborted() {
      return scope.signal.aborted;
    },
    get reason() {
      return scope.signal.reason;
    },
    addEventListener: (type, listener, options) => scope.signal.addEventListener(type, listener, options),
    removeEventListener: (type, listener) => scope.signal.removeEventListener(type, listener),
  };
}
