import type { IncomingMessage, ServerResponse } from "node:http";
import type { IMetricReader } from "@opentelemetry/sdk-metrics";

/** The Prometheus side of `--metrics`: a reader for the meter provider and the /metrics answer. */
export interface PrometheusMetrics {
  /** The PrometheusExporter, a metric reader (given to the OpenTelemetry SDK when it runs too). */
  reader: IMetricReader;
  /** Answers GET /metrics with the Prometheus text format. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  shutdown(): Promise<void>;
}

export const METRICS_PATH = "/metrics";

/** Whether a request asks for the scrape: GET or HEAD /metrics, with or without a query. */
export function isMetricsRequest(req: IncomingMessage): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const url = req.url ?? "";
  const end = url.indexOf("?");
  return (end === -1 ? url : url.slice(0, end)) === METRICS_PATH;
}

/**
 * Makes the Prometheus exporter (no server of its own: the app's port or --metrics-port serves it).
 * `register`: also make the global meter provider around it; false when the OpenTelemetry SDK
 * makes the provider and is given the reader. Loaded on demand, like the SDK.
 */
export async function createPrometheusMetrics(options: { register: boolean }): Promise<PrometheusMetrics> {
  const [{ PrometheusExporter }, api] = await Promise.all([
    import("@opentelemetry/exporter-prometheus"),
    import("@opentelemetry/api"),
  ]);
  // target_info would repeat the process's resource on every scrape; Prometheus labels by target.
  const exporter = new PrometheusExporter({ preventServerStart: true, withoutTargetInfo: true });
  let provider: { shutdown(): Promise<void> } | undefined;
  if (options.register) {
    const { MeterProvider } = await import("@opentelemetry/sdk-metrics");
    const meterProvider = new MeterProvider({ readers: [exporter] });
    api.metrics.setGlobalMeterProvider(meterProvider);
    provider = meterProvider;
  }
  return {
    reader: exporter,
    handle: (req, res) => exporter.getMetricsRequestHandler(req, res),
    async shutdown() {
      if (!provider) return;
      await provider.shutdown();
      api.metrics.disable();
    },
  };
}
