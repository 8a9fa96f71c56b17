import { metrics, propagation, trace } from "@opentelemetry/api";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { AggregationTemporality, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";

/** A metric reader that hands over what it has when asked (`collect()`), cumulative. */
export class TestMetricReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/**
 * Registers an OpenTelemetry SDK for one test file, as an application would: spans into memory,
 * the W3C trace-context and baggage propagators, and a fresh meter provider for every test (the
 * instrumented code remakes its instruments when the provider changes). Unregisters it all after.
 */
export function useTestTelemetry(): { spans: InMemorySpanExporter; reader(): TestMetricReader } {
  const spans = new InMemorySpanExporter();
  let reader = new TestMetricReader();
  let meterProvider: MeterProvider | undefined;
  beforeAll(() => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
    propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    );
  });
  beforeEach(() => {
    spans.reset();
    metrics.disable();
    reader = new TestMetricReader();
    meterProvider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(meterProvider);
  });
  afterEach(async () => {
    await meterProvider?.shutdown();
  });
  afterAll(() => {
    trace.disable();
    propagation.disable();
    metrics.disable();
  });
  return { spans, reader: () => reader };
}
