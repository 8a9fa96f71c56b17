// A raw 2026-07-28 client for the tasks extension (the SDK's clients cannot drive tasks): JSON-RPC
// POSTs with the _meta envelope and the Mcp-Method / Mcp-Name headers the extension names.
import { openStream } from "@toolshed/test-support";
import { expect } from "vitest";

const V = "2026-07-28";
export const EXTENSION = "io.modelcontextprotocol/tasks";

export interface Answer {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

export interface RpcOptions {
  /** Bearer token (none when undefined). */
  token?: string | undefined;
  /** Declare the tasks extension (default true). */
  tasks?: boolean;
}

let nextId = 0;

/** The headers and body of one request, with the extension declared unless `tasks` is false. */
function request(method: string, params: Record<string, unknown>, { token, tasks = true }: RpcOptions) {
  const name = method === "tools/call" ? params.name : params.taskId;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    "mcp-protocol-version": V,
    "mcp-method": method,
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
  };
  const body = {
    jsonrpc: "2.0",
    id: ++nextId,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientInfo": { name: "tasks-test", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {
          elicitation: {},
          ...(tasks ? { extensions: { [EXTENSION]: {} } } : {}),
        },
      },
    },
  };
  return { headers, body };
}

/** One request to `url`, with the extension declared unless `tasks` is false. */
export async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
  options: RpcOptions = {},
): Promise<Answer> {
  const { headers, body } = request(method, params, options);
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const answer = (await response.json()) as Omit<Answer, "status">;
  return { status: response.status, ...answer };
}

/** subscriptions/listen for `notifications` (taskIds, ...): the stream, read message by message. */
export function listen(url: string, notifications: Record<string, unknown>, options: RpcOptions = {}) {
  const { headers, body } = request("subscriptions/listen", { notifications }, options);
  return openStream(url, body, headers);
}

/** tasks/get until `done` holds; fails after `timeoutMs` (default 10 s) with the last answer. */
export async function until(
  url: string,
  taskId: string,
  done: (task: Record<string, unknown>) => boolean,
  token?: string,
  timeoutMs = 10_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { result, error } = await rpc(url, "tasks/get", { taskId }, { token });
    if (error) throw new Error(`tasks/get failed: ${error.message}`);
    if (result && done(result)) return result;
    if (Date.now() > deadline) throw new Error(`task ${taskId} never got there: ${JSON.stringify(result)}`);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

/** tasks/update and tasks/cancel answer an acknowledgement only, with none of the task's fields. */
export function expectAck(answer: Answer): void {
  expect(answer.result).toMatchObject({ resultType: "complete" });
  expect(Object.keys(answer.result ?? {}).filter((key) => key !== "_meta")).toEqual(["resultType"]);
}

export const ended = (task: Record<string, unknown>): boolean =>
  ["completed", "failed", "cancelled"].includes(String(task.status));
