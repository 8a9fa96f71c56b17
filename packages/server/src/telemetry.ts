import {
  type Attributes,
  type Context,
  type Counter,
  context,
  createNoopMeter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { ERROR_META_KEY } from "@toolshed/errors";
import type { AuthInfo } from "@toolshed/schema";
import { METHOD_TARGETS, targetName } from "./core/method-targets.js";
import type { Era } from "./era.js";
import { LEGACY_PROTOCOL_VERSIONS, MetaKey, MODERN_PROTOCOL_VERSIONS } from "./era.js";
import { JsonRpcError } from "./jsonrpc-error.js";
import { outcomeOf } from "./run-tool.js";

// OpenTelemetry through @opentelemetry/api only: nothing is recorded until the application
// registers an SDK (a tracer or meter provider). Until then each request pays two global look-ups.

/** The instrumentation scope name of the server's spans and metrics. */
export const INSTRUMENTATION_SCOPE = "@toolshed/server";

/** W3C trace context a transport read from its request (HTTP headers), used when `params._meta` has none. */
export interface TraceContextCarrier {
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
}

/**
 * A request's W3C trace context headers (`traceparent`, `tracestate`, `baggage`), read through
 * `header` (null or undefined when absent); undefined without a traceparent. Both transports use it:
 * the 2026-07-28 POST and the SDK's session requests.
 */
export function traceContextOf(header: (name: string) => string | null | undefined): TraceContextCarrier | undefined {
  const traceparent = header("traceparent");
  if (traceparent === null || traceparent === undefined) return undefined;
  const carrier: TraceContextCarrier = { traceparent };
  const tracestate = header("tracestate");
  if (tracestate !== null && tracestate !== undefined) carrier.tracestate = tracestate;
  const baggage = header("baggage");
  if (baggage !== null && baggage !== undefined) carrier.baggage = baggage;
  return carrier;
}

/** The span and metric attribute names this package records. */
export const TelemetryAttr = {
  methodName: "mcp.method.name",
  protocolVersion: "mcp.protocol.version",
  sessionId: "mcp.session.id",
  resourceUri: "mcp.resource.uri",
  requestId: "jsonrpc.request.id",
  rpcStatusCode: "rpc.response.status_code",
  operationName: "gen_ai.operation.name",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  errorType: "error.type",
  outcome: "toolshed.outcome",
  errorCode: "toolshed.error.code",
  errorKind: "toolshed.error.kind",
  errorRetryable: "toolshed.error.retryable",
  errorRef: "toolshed.error.ref",
  coercionKind: "toolshed.coercion.kind",
} as const;

/** Metric names. */
export const TelemetryMetric = {
  operationDuration: "mcp.server.operation.duration",
  toolCalls: "toolshed.tool.calls",
  argumentCoercions: "toolshed.tool.argument_coercions",
} as const;

// The MCP semantic conventions' advice for mcp.server.operation.duration (seconds).
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/**
 * Instruments made from the global meter provider, remade when the provider changes (an SDK
 * registered after start-up, or a test that swaps providers); undefined while it is the no-op one.
 */
export function meterInstruments<T>(name: string, make: (meter: Meter) => T): () => T | undefined {
  let provider: MeterProvider | undefined;
  let made: T | undefined;
  return () => {
    const current = metrics.getMeterProvider();
    if (current !== provider) {
      provider = current;
      const meter = current.getMeter(name);
      made = meter === createNoopMeter() ? undefined : make(meter);
    }
    return made;
  };
}

/** The global tracer, cached per provider; undefined while no SDK registered one. */
function tracerSource(name: string): () => Tracer | undefined {
  let delegate: TracerProvider | undefined;
  let tracer: Tracer | undefined;
  return () => {
    const global = trace.getTracerProvider() as TracerProvider & {
      getDelegate?: () => TracerProvider;
      getDelegateTracer?: (name: string) => Tracer | undefined;
    };
    // Duck-typed: the global proxy may come from another copy of the API.
    if (typeof global.getDelegate !== "function" || typeof global.getDelegateTracer !== "function") {
      if (global !== delegate) {
        delegate = global;
        tracer = global.getTracer(name);
      }
      return tracer;
    }
    const current = global.getDelegate();
    if (current !== delegate) {
      delegate = current;
      tracer = global.getDelegateTracer(name);
    }
    return tracer;
  };
}

/** The tracer and instruments of the registered SDK. */
export interface Recorder {
  tracer: Tracer | undefined;
  instruments: ServerInstruments | undefined;
}

interface ServerInstruments {
  duration: Histogram;
  toolCalls: Counter;
}

const carrierGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

/** What telemetry needs of a request's scope. */
export interface TelemetryScope {
  sessionId?: string;
  /** The caller: a name hidden from it is recorded as unknown. */
  authInfo?: AuthInfo;
  traceContext?: TraceContextCarrier;
}

/** A metric attribute's value for anything the server does not know (semantic conventions). */
const OTHER = "_OTHER";
const SUPPORTED_VERSIONS: ReadonlySet<string> = new Set([...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]);
/** Longest client-made string a span name or attribute keeps. */
const MAX_SPAN_TEXT = 256;

function clip(text: string): string {
  return text.length <= MAX_SPAN_TEXT ? text : `${text.slice(0, MAX_SPAN_TEXT - 1)}…`;
}

/** The span's target attribute: a tool or prompt name, a resource URI; undefined for other methods. */
function targetOf(
  method: string,
  params: Record<string, unknown> | undefined,
): [attr: string, value: string] | undefined {
  const target = METHOD_TARGETS.get(method);
  if (target === undefined || !target.traced || target.kind === "completion" || target.kind === "task")
    return undefined;
  const name = targetName(method, params);
  return name === undefined ? undefined : [TARGET_ATTR[target.kind], name];
}

/** The attribute that names each kind of target. */
const TARGET_ATTR = {
  tool: TelemetryAttr.toolName,
  prompt: TelemetryAttr.promptName,
  resource: TelemetryAttr.resourceUri,
} as const;

/**
 * The server's spans and metrics. `observe` runs one request inside a SERVER span named after the
 * MCP semantic conventions, parented on the W3C trace context of `params._meta` or, failing that,
 * the transport's; it records the duration histogram and, for tools/call, the call counter.
 */
export class ServerTelemetry {
  readonly #tracer = tracerSource(INSTRUMENTATION_SCOPE);
  readonly #instruments = meterInstruments<ServerInstruments>(INSTRUMENTATION_SCOPE, (meter) => ({
    duration: meter.createHistogram(TelemetryMetric.operationDuration, {
      description: "Duration of MCP requests handled by the server",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    toolCalls: meter.createCounter(TelemetryMetric.toolCalls, {
      description: "Tool calls answered with a result, by tool and outcome",
      unit: "{call}",
    }),
  }));
  /** Whether a name is one of the server's definitions (metric attributes take no client-made names). */
  readonly #known: (attr: string, name: string, auth: AuthInfo | undefined) => boolean;
  /** Reference ids of masked JSON-RPC internal errors, for their span. */
  readonly refs = new WeakMap<JsonRpcError, string>();

  constructor(known: (attr: string, name: string, auth: AuthInfo | undefined) => boolean) {
    this.#known = known;
  }

  /** What records this request: undefined while no SDK is registered (the request then runs plainly). */
  recorder(): Recorder | undefined {
    const tracer = this.#tracer();
    const instruments = this.#instruments();
    return tracer === undefined && instruments === undefined ? undefined : { tracer, instruments };
  }

  /** Runs `answer` in the request's span, and records its duration (and a tool call's outcome). */
  async observe(
    { tracer, instruments }: Recorder,
    method: string,
    rawParams: unknown,
    id: string | number,
    scope: TelemetryScope,
    era: Era,
    answer: () => Promise<unknown>,
  ): Promise<unknown> {
    const started = performance.now();
    const params =
      typeof rawParams === "object" && rawParams !== null && !Array.isArray(rawParams)
        ? (rawParams as Record<string, unknown>)
        : undefined;
    const meta =
      typeof params?._meta === "object" && params._meta !== null
        ? (params._meta as Record<string, unknown>)
        : undefined;
    const target = targetOf(method, params);
    const version = era === "modern" ? meta?.[MetaKey.protocolVersion] : undefined;
    // Metric attributes take only values the server knows: a client that makes up method names or
    // versions would otherwise add a time series with each (the semantic conventions' "_OTHER").
    const knownMethod = this.#known(TelemetryAttr.methodName, method, undefined);
    const metricAttrs: Attributes = { [TelemetryAttr.methodName]: knownMethod ? method : OTHER };
    if (typeof version === "string") {
      metricAttrs[TelemetryAttr.protocolVersion] = SUPPORTED_VERSIONS.has(version) ? version : OTHER;
    }
    // A tool or prompt hidden from this caller is unknown to it: its name in /metrics would say it exists.
    const known =
      target !== undefined &&
      target[0] !== TelemetryAttr.resourceUri &&
      this.#known(target[0], target[1], scope.authInfo)
        ? target
        : undefined;
    if (known !== undefined) metricAttrs[known[0]] = known[1];
    let span: Span | undefined;
    let active: Context | undefined;
    if (tracer !== undefined) {
      // Span names and attributes keep client-made strings (ids, names, URIs) short: each span is
      // held until it is exported.
      const attributes: Attributes = {
        ...metricAttrs,
        [TelemetryAttr.requestId]: clip(String(id)),
      };
      if (!knownMethod) attributes[TelemetryAttr.methodName] = clip(method);
      if (typeof version === "string") attributes[TelemetryAttr.protocolVersion] = clip(version);
      if (target !== undefined) attributes[target[0]] = clip(target[1]);
      if (method === "tools/call") attributes[TelemetryAttr.operationName] = "execute_tool";
      if (scope.sessionId !== undefined) attributes[TelemetryAttr.sessionId] = scope.sessionId;
      const parent = parentContext(meta, scope);
      const name = clip(target === undefined ? method : `${method} ${target[1]}`);
      span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
      active = trace.setSpan(parent, span);
    }
    try {
      const result = active === undefined ? await answer() : await context.with(active, answer);
      if (method === "tools/call" && typeof result === "object" && result !== null) {
        this.#toolResult(result as Record<string, unknown>, span, metricAttrs, known, instruments);
      }
      return result;
    } catch (error) {
      if (error instanceof JsonRpcError) {
        const code = String(error.code);
        metricAttrs[TelemetryAttr.errorType] = code;
        span?.setAttributes({ [TelemetryAttr.errorType]: code, [TelemetryAttr.rpcStatusCode]: code });
        const ref = this.refs.get(error);
        if (ref !== undefined) span?.setAttribute(TelemetryAttr.errorRef, ref);
        // The JSON-RPC message is what the client sees; an internal error's is only "Internal error (ref …)".
        span?.setStatus({ code: SpanStatusCode.ERROR, message: clip(error.message) });
      } else {
        metricAttrs[TelemetryAttr.errorType] = "_OTHER";
        span?.setStatus({ code: SpanStatusCode.ERROR });
      }
      throw error;
    } finally {
      span?.end();
      instruments?.duration.record((performance.now() - started) / 1000, metricAttrs);
    }
  }

  #toolResult(
    result: Record<string, unknown>,
    span: Span | undefined,
    metricAttrs: Attributes,
    /** The tool, when its name may be recorded. */
    target: [string, string] | undefined,
    instruments: ServerInstruments | undefined,
  ): void {
    const outcome =
      result.resultType === "input_required" ? "input_required" : outcomeOf(result as Parameters<typeof outcomeOf>[0]);
    span?.setAttribute(TelemetryAttr.outcome, outcome);
    if (instruments !== undefined && target !== undefined) {
      instruments.toolCalls.add(1, { [TelemetryAttr.toolName]: target[1], [TelemetryAttr.outcome]: outcome });
    }
    if (result.isError !== true) return;
    // The class of the error (C9), never its message: a masked error carries only its reference id.
    const info = (result._meta as Record<string, unknown> | undefined)?.[ERROR_META_KEY] as
      | { code?: unknown; kind?: unknown; retryable?: unknown; ref?: unknown }
      | undefined;
    const code = typeof info?.code === "string" ? info.code : "tool_error";
    metricAttrs[TelemetryAttr.errorType] = code;
    if (span === undefined) return;
    const attributes: Attributes = { [TelemetryAttr.errorType]: code, [TelemetryAttr.errorCode]: code };
    if (typeof info?.kind === "string") attributes[TelemetryAttr.errorKind] = info.kind;
    if (typeof info?.retryable === "boolean") attributes[TelemetryAttr.errorRetryable] = info.retryable;
    if (typeof info?.ref === "string") attributes[TelemetryAttr.errorRef] = info.ref;
    span.setAttributes(attributes);
    if (info?.kind === "internal") span.setStatus({ code: SpanStatusCode.ERROR });
  }
}

/** The parent of a request's span: `params._meta`'s trace context (SEP-414) first, else the transport's. */
function parentContext(meta: Record<string, unknown> | undefined, scope: TelemetryScope): Context {
  if (typeof meta?.traceparent === "string") return propagation.extract(ROOT_CONTEXT, meta, carrierGetter);
  const carried = scope.traceContext;
  if (carried?.traceparent !== undefined) {
    return propagation.extract(ROOT_CONTEXT, carried as Record<string, unknown>, carrierGetter);
  }
  return context.active();
}
