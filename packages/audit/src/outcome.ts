/** How one request ended, as the audit judges it. */
export type Outcome =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "error"; code: number; message: string }
  | { kind: "timeout" }
  | { kind: "too_large"; limit: number }
  | { kind: "closed"; message: string };
