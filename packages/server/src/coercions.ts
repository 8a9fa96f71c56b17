import type { Coercion, Logger } from "@toolshed/schema";
import { INSTRUMENTATION_SCOPE, meterInstruments, TelemetryAttr, TelemetryMetric } from "./telemetry.js";

const instruments = meterInstruments(INSTRUMENTATION_SCOPE, (meter) => ({
  coercions: meter.createCounter(TelemetryMetric.argumentCoercions, {
    description: "Arguments taken in the form their schema needs (lax coercion), by tool and kind",
    unit: "{argument}",
  }),
}));

/**
 * Says that a call's arguments were coerced: one log line naming each field and what it was sent
 * as, and the counter (by tool and kind; the tool is a definition's name, never a client's).
 */
export function reportCoercions(logger: Logger, tool: string, coercions: readonly Coercion[], count = true): void {
  logger.info({ tool, coerced: coercions }, "arguments coerced");
  if (!count) return;
  const counter = instruments()?.coercions;
  if (counter === undefined) return;
  for (const coercion of coercions) {
    counter.add(1, { [TelemetryAttr.toolName]: tool, [TelemetryAttr.coercionKind]: coercion.kind });
  }
}
