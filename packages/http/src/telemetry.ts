import { meterInstruments } from "@toolshed/server/internal";

// HTTP metrics through @opentelemetry/api: no-ops until the application registers a meter provider.

/** Why the HTTP layer refused a request before any MCP method ran (`reason` of toolshed.http.requests.refused). */
export type RefusalReason =
  | "shutting_down"
  | "host"
  | "token_in_url"
  | "unauthorized"
  | "forbidden"
  | "auth_unavailable"
  | "rate_limited"
  | "body_too_large"
  | "session_limit"
  | "listen_limit";

/** Metric names of @toolshed/http. */
export const HttpMetric = {
  inFlight: "toolshed.http.requests.in_flight",
  refused: "toolshed.http.requests.refused",
  sessionsOpen: "toolshed.http.sessions.open",
} as const;

const instruments = meterInstruments("@toolshed/http", (meter) => ({
  inFlight: meter.createUpDownCounter(HttpMetric.inFlight, {
    description: "MCP endpoint requests being served (POST and DELETE; open GET streams are not counted)",
    unit: "{request}",
  }),
  refused: meter.createCounter(HttpMetric.refused, {
    description: "Requests to the MCP endpoint refused before any MCP method ran, by reason",
    unit: "{request}",
  }),
  sessionsOpen: meter.createUpDownCounter(HttpMetric.sessionsOpen, {
    description: "Open MCP sessions (2025 revisions, sessions mode)",
    unit: "{session}",
  }),
}));

const REASON_ATTRIBUTES = new Map<RefusalReason, { reason: RefusalReason }>();

export function countRefused(reason: RefusalReason): void {
  const made = instruments();
  if (made === undefined) return;
  let attributes = REASON_ATTRIBUTES.get(reason);
  if (attributes === undefined) {
    attributes = { reason };
    REASON_ATTRIBUTES.set(reason, attributes);
  }
  made.refused.add(1, attributes);
}

/** Counts a request in flight; the returned function counts it out (on the same provider's instrument). */
export function countInFlight(): (() => void) | undefined {
  const made = instruments();
  if (made === undefined) return undefined;
  made.inFlight.add(1);
  return () => made.inFlight.add(-1);
}

/** Sessions opened (positive) or closed (negative). */
export function countSession(delta: number): void {
  instruments()?.sessionsOpen.add(delta);
}
