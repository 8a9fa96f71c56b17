import { type InputRound, runInRounds } from "../input-round.js";
import { optionalObject, requireString } from "../params.js";
import { principalOf } from "../request-state.js";
import type { CancelSignal, ToolBase } from "../run-tool.js";
import { baseContext, questions, toolContext } from "./handler-context.js";
import { declaresTasks, type StartedTask, type TaskContext, type TaskRunner, tasksRequired } from "./tasks.js";
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
  const onOutcome = outcomeListener(parts, scope);
  // What the transport checked before dispatch (HTTP's 403 check) is not checked again.
  const checked = scope.access;
  if (!call.envelope) {
    const ctx = toolContext(call, name, undefined, hooks);
    return runtime.callTool(name, args, view, ctx, scope.cancel ?? scope.signal, onOutcome, call.frame, checked);
  }
  const tool = runtime.tools.get(name);
  if (tool !== undefined && tool.task !== "forbidden") {
    if (parts.tasks && declaresTasks(call.envelope)) {
      return tool.taskStart === "handler"
        ? taskFromHandler(parts, parts.tasks, call, name, args)
        : taskFromCall(parts, parts.tasks, call, name, args);
    }
    if (tool.task === "required") throw tasksRequired(`the tool ${name} runs only as a task`);
  }
  return inRounds(parts, call, name, args, (round) =>
    runtime.callTool(name, args, view, toolContext(call, name, round, hooks), round, onOutcome, call.frame, checked),
  );
}

/**
 * A task made before the handler runs, for a call that would reach it (its arguments are valid).
 * The handler starts while the task is written; the call answers once it is kept.
 */
async function taskFromCall(parts: CoreParts, tasks: TaskRunner, call: Call, name: string, args: unknown) {
  const { runtime, hooks } = parts;
  const { scope } = call;
  const view = runtime.viewFor(scope.authInfo);
  const refusal = runtime.refuseToolCall(name, args, view, scope.authInfo, scope.access);
  if (refusal !== undefined) return refusal;
  const task = await tasks.start(call, name, (started) =>
    runtime.callTool(
      name,
      args,
      view,
      // The task's ways to ask, report progress and log replace the call's: assigned, not spread into a third object.
      Object.assign(toolContext(call, name, undefined, hooks), tasks.context(started)),
      started.cancel,
      outcomeListener(parts, scope),
      call.frame,
      scope.access,
      tasks.timeoutMs,
    ),
  );
  return task.answer;
}

/**
 * A task the handler starts (`ctx.startTask()`): until then the call runs in rounds (its questions
 * are the call's input_required answers); from then the call answers with the task and the handler
 * goes on as it. A handler that returns without starting it answers in the call.
 */
function taskFromHandler(parts: CoreParts, tasks: TaskRunner, call: Call, name: string, args: unknown) {
  const { runtime, hooks } = parts;
  const { scope } = call;
  const view = runtime.viewFor(scope.authInfo);
  return inRounds(
    parts,
    call,
    name,
    args,
    (round) =>
      new Promise((resolve, reject) => {
        const inCall = toolContext(call, name, round, hooks);
        let task: Promise<StartedTask> | undefined;
        let inTask: TaskContext | undefined;
        const base: ToolBase = {
          ...inCall,
          createMessage: (params, options) => (inTask ?? inCall).createMessage(params, options),
          elicitInput: (params, options) => (inTask ?? inCall).elicitInput(params, options),
          listRoots: (options) => (inTask ?? inCall).listRoots(options),
          progress: (done, total, message) => (inTask ?? inCall).progress(done, total, message),
          log: (level, data) => (inTask ?? inCall).log(level, data),
          startTask: () => {
            task ??= tasks.create(call, name).then(
              (started) => {
                round.handOver(started.cancel);
                inTask = tasks.context(started);
                tasks.finish(started, work);
                resolve(started.answer);
                return started;
              },
              (error: unknown) => {
                // The call answers with why no task was made (too many, the store failed).
                reject(error);
                throw error;
              },
            );
            return task.then(() => undefined);
          },
        };
        const work = runtime.callTool(
          name,
          args,
          view,
          base,
          round,
          outcomeListener(parts, scope),
          call.frame,
          scope.access,
          tasks.timeoutMs,
        );
        work.then((result) => {
          if (task === undefined) resolve(result);
        }, reject);
      }),
  );
}

/** Who hears a call's outcome: the scope's listener (a method of a class instance), or the server's. */
function outcomeListener(parts: CoreParts, scope: CallScope) {
  return scope.onToolOutcome ? scope.onToolOutcome.bind(scope) : parts.onToolOutcome;
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
