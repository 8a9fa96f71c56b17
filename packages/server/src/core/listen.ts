import type { AuthInfo } from "@toolshed/schema";
import type { ChangeEvent } from "../changes.js";
import { MetaKey } from "../era.js";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import { optionalObject } from "../params.js";
import { principalOf } from "../request-state.js";
import type { Runtime } from "../runtime/runtime.js";
import type { TaskRecord } from "../tasks/task-record.js";
import { capabilitiesOf } from "./capabilities.js";
import { declaresTasks, taskNotification, tasksRequired } from "./tasks.js";
import type { Call, CoreParts } from "./types.js";

/** Task ids one listen stream may watch: more is a request to split. */
const MAX_TASK_IDS = 1_000;

// subscriptions/listen (2026-07-28): one stream of the change notifications a client asked for.

const NOTIFICATION_OF: Record<ChangeEvent["type"], string> = {
  "tools/list_changed": "toolsListChanged",
  "prompts/list_changed": "promptsListChanged",
  "resources/list_changed": "resourcesListChanged",
  "resources/updated": "resourceSubscriptions",
};

export async function listen(parts: CoreParts, call: Call): Promise<unknown> {
  const { runtime, changes, listeners } = parts;
  const { params, scope, id } = call;
  const filter = optionalObject("subscriptions/listen", params, "notifications");
  if (!filter) {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      "Invalid params for subscriptions/listen: params.notifications must be an object such as {resourcesListChanged: true, resourceSubscriptions: [uri]}",
    );
  }
  const notify = scope.notify;
  if (!notify) throw new JsonRpcError(JsonRpcCode.InternalError, "subscriptions/listen needs a streaming transport");
  const caps = capabilitiesOf(runtime, "modern", false);
  const honoured: Record<string, unknown> = {};
  if (filter.toolsListChanged === true && caps.tools?.listChanged) honoured.toolsListChanged = true;
  if (filter.promptsListChanged === true && caps.prompts?.listChanged) honoured.promptsListChanged = true;
  if (filter.resourcesListChanged === true && caps.resources?.listChanged) honoured.resourcesListChanged = true;
  const uris = filter.resourceSubscriptions;
  if (uris !== undefined && (!Array.isArray(uris) || uris.some((u) => typeof u !== "string"))) {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      "Invalid params for subscriptions/listen: params.notifications.resourceSubscriptions must be a list of resource URIs",
    );
  }
  // Only what this caller may read: a hidden or forbidden resource is not watched for it.
  const watched = new Set<string>(
    caps.resources?.subscribe
      ? ((uris as string[] | undefined) ?? []).filter((u) => readable(runtime, u, scope.authInfo))
      : [],
  );
  if (uris !== undefined) honoured.resourceSubscriptions = [...watched];
  const tasks = await watchedTasks(parts, call, filter.taskIds);
  if (tasks !== undefined) honoured.taskIds = tasks.map((t) => t.taskId);
  const tag = { [MetaKey.subscriptionId]: id };
  await notify({
    method: "notifications/subscriptions/acknowledged",
    params: { _meta: tag, notifications: honoured },
  });
  const final = { _meta: tag };
  const signal = scope.cancel ?? scope.signal;
  if (signal.aborted) return final;
  return new Promise((resolve) => {
    const auth = scope.authInfo;
    const unsubscribe = changes.subscribe((event) => {
      if (event.type === "resources/updated") {
        if (!matches(watched, event.uri)) return;
        // Under a watched prefix may lie a resource this caller may not read: it hears nothing of it.
        if (!watched.has(event.uri) && runtime.filtersByCaller && !readable(runtime, event.uri, auth)) return;
        void notify({ method: "notifications/resources/updated", params: { _meta: tag, uri: event.uri } });
      } else if (honoured[NOTIFICATION_OF[event.type]] === true) {
        if (
          event.type === "resources/list_changed" &&
          event.pack !== undefined &&
          !runtime.seesResourcesOf(event.pack, auth)
        ) {
          return;
        }
        void notify({ method: `notifications/${event.type}`, params: { _meta: tag } });
      }
    });
    const unwatch =
      tasks === undefined
        ? () => {}
        : parts.tasks?.watchers.watch(principalOf(auth) ?? "", tasks, (task) => {
            void notify({ method: "notifications/tasks", params: { _meta: tag, ...taskNotification(task) } });
          });
    const end = () => {
      unsubscribe();
      unwatch?.();
      listeners.delete(end);
      signal.removeEventListener("abort", end);
      resolve(final);
    };
    listeners.add(end);
    signal.addEventListener("abort", end, { once: true });
  });
}

/**
 * notifications.taskIds: the caller's tasks among them (another caller's or an unknown one is left
 * out of the acknowledgement, as tasks/get would not find it); undefined when none were asked for
 * or the server runs no tasks.
 */
async function watchedTasks(parts: CoreParts, call: Call, taskIds: unknown): Promise<TaskRecord[] | undefined> {
  if (taskIds === undefined || parts.tasks === undefined) return undefined;
  if (!Array.isArray(taskIds) || taskIds.some((t) => typeof t !== "string")) {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      "Invalid params for subscriptions/listen: params.notifications.taskIds must be a list of task ids from tools/call",
    );
  }
  if (!declaresTasks(call.envelope)) throw tasksRequired("notifications.taskIds needs it");
  if (taskIds.length > MAX_TASK_IDS) {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      `Invalid params for subscriptions/listen: at most ${MAX_TASK_IDS} taskIds in one stream (got ${taskIds.length}); listen for fewer, or poll tasks/get`,
    );
  }
  return parts.tasks.watchers.find(principalOf(call.scope.authInfo) ?? "", taskIds as string[]);
}

/** Whether the caller knows the resource at `uri` and may read it. */
function readable(runtime: Runtime, uri: string, auth: AuthInfo | undefined): boolean {
  return runtime.knowsResource(uri, auth) && runtime.access(auth, "resource", uri).ok;
}

/** Whether a change to `uri` concerns a listener of `watched` (the URI itself or one below it). */
function matches(watched: ReadonlySet<string>, uri: string): boolean {
  if (watched.has(uri)) return true;
  for (const w of watched) if (uri.startsWith(w.endsWith("/") ? w : `${w}/`)) return true;
  return false;
}
