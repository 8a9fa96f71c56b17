import fc from "fast-check";

/** What one element of a message must get back, by the contract (C12). */
export interface ElementExpectation {
  /** The id as the server parses it (only string and number ids are answered with that id). */
  id?: string | number;
  /** Allowed JSON-RPC error codes; "result" for a success; undefined for any well-formed answer. */
  outcome?: number[] | "result";
  /** A request (it has `method` and a string or number id) must get exactly one answer. */
  mustAnswer: boolean;
}

export interface RawMessage {
  label: string;
  text: string;
}

type Obj = Record<string, unknown>;

const KNOWN_REQUESTS: Array<{ method: string; params?: Obj }> = [
  { method: "ping" },
  { method: "tools/list" },
  { method: "tools/list", params: { cursor: "x" } },
  { method: "resources/list" },
  { method: "resources/templates/list" },
  { method: "prompts/list" },
  { method: "logging/setLevel", params: { level: "warning" } },
  { method: "tools/call", params: { name: "get_note", arguments: { title: "groceries" } } },
  { method: "tools/call", params: { name: "search_notes", arguments: { query: "milk" } } },
  { method: "resources/read", params: { uri: "note://groceries" } },
  { method: "prompts/get", params: { name: "summarize_note", arguments: { title: "groceries" } } },
];

/** Requests with a method the server knows but without the params it needs: -32602. */
const MISSING_PARAMS = ["tools/call", "resources/read", "prompts/get", "completion/complete", "logging/setLevel"];

const KNOWN_METHODS = new Set([
  ...KNOWN_REQUESTS.map((r) => r.method),
  ...MISSING_PARAMS,
  "initialize",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/** Ids of every JSON type, and numbers JSON can barely carry. */
export const anyId = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.constantFrom(0, -1, 2 ** 53 - 1, 2 ** 53 + 2, 1e21, 1.5, -0.25, 1e-7),
  fc.constantFrom(null, true, false, {}, { a: 1 }, [], [1], ""),
  fc.string({ unit: "grapheme", maxLength: 10 }),
);

function isAnswerableId(id: unknown): id is string | number {
  return typeof id === "string" || typeof id === "number";
}

/** A round trip through JSON, so expectations use the values the server parses. */
function viaJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const wrongVersion = fc.constantFrom("1.0", "2", 2, 2.0001, null, "", "2.0 ", " 2.0", "3.0");

const unknownMethod = fc
  .oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom("tools/delete", "rpc.discover", "__proto__", "constructor", "tools/", "TOOLS/LIST", "ping "),
  )
  .filter((m) => !KNOWN_METHODS.has(m) && !m.startsWith("notifications/"));

/** Nesting of arrays or objects `depth` deep, written as text (no recursion on either side). */
export function nested(depth: number, kind: "array" | "object"): string {
  return kind === "array"
    ? `${"[".repeat(depth)}${"]".repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** One message object of a chosen kind, with what it must get back. */
const element: fc.Arbitrary<{ value: unknown; label: string }> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...KNOWN_REQUESTS), anyId)
    .map(([r, id]) => ({ value: { jsonrpc: "2.0", id, ...r }, label: `request ${r.method}` })),
  fc
    .tuple(fc.constantFrom(...KNOWN_REQUESTS), anyId, wrongVersion)
    .map(([r, id, v]) => ({ value: { jsonrpc: v, id, ...r }, label: `jsonrpc ${JSON.stringify(v)}` })),
  fc.tuple(fc.constantFrom(...KNOWN_REQUESTS), anyId).map(([r, id]) => {
    const { jsonrpc: _omit, ...rest } = { jsonrpc: "2.0", id, ...r };
    return { value: rest, label: "no jsonrpc" };
  }),
  fc
    .tuple(unknownMethod, anyId)
    .map(([method, id]) => ({ value: { jsonrpc: "2.0", id, method }, label: "unknown method" })),
  fc
    .tuple(fc.constantFrom(...MISSING_PARAMS), anyId)
    .map(([method, id]) => ({ value: { jsonrpc: "2.0", id, method }, label: `${method} without params` })),
  fc
    .tuple(
      fc.constantFrom(...KNOWN_REQUESTS, ...MISSING_PARAMS.map((method) => ({ method }))),
      anyId,
      fc.constantFrom([], [1], "x", 3, true, null),
    )
    .map(([r, id, params]) => ({
      value: { jsonrpc: "2.0", id, method: r.method, params },
      label: `params ${JSON.stringify(params)}`,
    })),
  fc.tuple(fc.constantFrom(...KNOWN_REQUESTS), fc.jsonValue({ maxDepth: 2 })).map(([r, meta]) => ({
    value: { jsonrpc: "2.0", id: "meta", method: r.method, params: { ...r.params, _meta: meta } },
    label: "odd _meta",
  })),
  fc
    .constantFrom(
      ...KNOWN_REQUESTS,
      { method: "notifications/initialized" },
      { method: "notifications/cancelled", params: { requestId: 1 } },
    )
    .map((r) => ({
      value: { jsonrpc: "2.0", ...r },
      label: `notification ${r.method}`,
    })),
  anyId.map((id) => ({ value: { jsonrpc: "2.0", id, result: {} }, label: "a response" })),
  anyId.map((id) => ({ value: { jsonrpc: "2.0", id, error: { code: 1, message: "x" } }, label: "an error response" })),
  anyId.map((id) => ({ value: { jsonrpc: "2.0", id }, label: "no method" })),
  fc.jsonValue({ maxDepth: 2 }).map((value) => ({ value, label: "any JSON value" })),
  fc
    .tuple(
      fc.constantFrom(...KNOWN_REQUESTS),
      anyId,
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    )
    .map(([r, id, extra]) => ({ value: { ...extra, jsonrpc: "2.0", id, ...r }, label: "extra members" })),
);

/** What the contract requires for one parsed element. */
export function expectationFor(value: unknown): ElementExpectation {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { mustAnswer: false, outcome: [-32600] };
  const m = value as Obj;
  const isRequest = "method" in m;
  if (!isAnswerableId(m.id) || !Object.hasOwn(m, "id")) return { mustAnswer: false };
  const id = m.id;
  if (!isRequest) {
    // A response from the client gets nothing back; a message with an id but neither is invalid.
    return "result" in m || "error" in m ? { id, mustAnswer: false } : { id, mustAnswer: true, outcome: [-32600] };
  }
  if (typeof id === "number" && !Number.isSafeInteger(id)) return { id, mustAnswer: true };
  if (m.jsonrpc !== "2.0") return { id, mustAnswer: true, outcome: [-32600] };
  if (typeof m.method !== "string") return { id, mustAnswer: true, outcome: [-32600] };
  if (m.method === "") return { id, mustAnswer: true, outcome: [-32600, -32601] };
  if ("params" in m && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))) {
    return { id, mustAnswer: true, outcome: [-32600] };
  }
  // Members JSON-RPC does not define: the SDK's schema refuses them (-32600); either answer is fine.
  if (Object.keys(m).some((k) => !["jsonrpc", "id", "method", "params"].includes(k))) return { id, mustAnswer: true };
  const params = m.params as Obj | undefined;
  if (params && "_meta" in params) return { id, mustAnswer: true };
  if (!KNOWN_METHODS.has(m.method)) return { id, mustAnswer: true, outcome: [-32601] };
  if (MISSING_PARAMS.includes(m.method) && params === undefined) return { id, mustAnswer: true, outcome: [-32602] };
  if (KNOWN_REQUESTS.some((r) => r.method === m.method && sameJson(r.params, params))) {
    return { id, mustAnswer: true, outcome: "result" };
  }
  return { id, mustAnswer: true };
}

/** Deep equality through JSON text; nesting too deep to print is never one of the known params. */
function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/** Elements of a batch with ids each used once, so every answer can be matched to its request. */
function distinctIds(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const id = typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj).id : undefined;
    if (!isAnswerableId(id)) return true;
    const key = JSON.stringify(id);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const malformed = fc.oneof(
  fc.constantFrom(
    "{",
    "[",
    "}",
    '{"jsonrpc":"2.0","id":1,',
    '{"jsonrpc":"2.0","id":1,"method":"ping",}',
    "{'jsonrpc':'2.0','id':1,'method':'ping'}",
    '{"jsonrpc":"2.0","id":NaN,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1,"method":"ping"}}',
    '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}',
    "undefined",
    "\u0000",
    '"unterminated',
  ),
  fc.string({ minLength: 1, maxLength: 80 }),
  fc.tuple(fc.constantFrom(...KNOWN_REQUESTS), fc.nat()).map(([r, cut]) => {
    const text = JSON.stringify({ jsonrpc: "2.0", id: 1, ...r });
    return text.slice(0, cut % text.length);
  }),
);

/** Raw texts: single messages, batches (empty too), malformed JSON and deep nesting. */
export const rawMessage: fc.Arbitrary<RawMessage> = fc.oneof(
  { weight: 6, arbitrary: element.map((e) => ({ label: e.label, text: JSON.stringify(viaJson(e.value)) })) },
  {
    weight: 3,
    arbitrary: fc.array(element, { maxLength: 6 }).map((es) => ({
      label: `batch of ${es.length}: ${es.map((e) => e.label).join(", ")}`,
      text: JSON.stringify(distinctIds(es.map((e) => viaJson(e.value)))),
    })),
  },
  {
    weight: 2,
    arbitrary: malformed
      .map((text) => text.replace(/[\r\n]/g, " "))
      .filter((text) => text.trim() !== "")
      .map((text) => ({ label: "malformed JSON", text })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(10, 100, 1_000, 10_000, 100_000),
        fc.constantFrom("array" as const, "object" as const),
        fc.constantFrom("arguments", "meta", "id", "top"),
      )
      .map(([depth, kind, where]) => {
        const deep = nested(depth, kind);
        const text =
          where === "arguments"
            ? `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"get_note","arguments":{"title":${deep}}}}`
            : where === "meta"
              ? `{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"_meta":{"x":${deep}}}}`
              : where === "id"
                ? `{"jsonrpc":"2.0","id":${deep},"method":"ping"}`
                : deep;
        return { label: `nesting ${depth} deep (${kind}, ${where})`, text };
      }),
  },
);

/** Whether a text is JSON at all (if not, the only answer is one -32700 with id null). */
export function parses(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
