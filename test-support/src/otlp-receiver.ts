import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A stand-in OpenTelemetry collector: OTLP/HTTP with JSON bodies (OTEL_EXPORTER_OTLP_PROTOCOL=http/json).

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Record<string, string | number | boolean | undefined>;
  resource: Record<string, string | number | boolean | undefined>;
  scope: string;
}

export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT, e.g. http://127.0.0.1:4318. */
  endpoint: string;
  /** Paths posted to, in order (/v1/traces, /v1/metrics, …). */
  paths: string[];
  spans(): ReceivedSpan[];
  /** Resolves with the first span `test` accepts; rejects after `timeoutMs`. */
  waitForSpan(test: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

const plainValue = (value: AnyValue): string | number | boolean | undefined =>
  value.stringValue ??
  (value.intValue === undefined ? undefined : Number(value.intValue)) ??
  value.boolValue ??
  value.doubleValue;

const record = (attributes: KeyValue[] | undefined) =>
  Object.fromEntries((attributes ?? []).map((kv) => [kv.key, plainValue(kv.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const paths: string[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      paths.push(req.url ?? "");
      if (req.url === "/v1/traces") {
        const parsed = JSON.parse(body) as {
          resourceSpans?: Array<{
            resource?: { attributes?: KeyValue[] };
            scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<Record<string, unknown>> }>;
          }>;
        };
        for (const rs of parsed.resourceSpans ?? []) {
          for (const ss of rs.scopeSpans ?? []) {
            for (const span of ss.spans ?? []) {
              spans.push({
                name: span.name as string,
                traceId: span.traceId as string,
                spanId: span.spanId as string,
                ...(span.parentSpanId ? { parentSpanId: span.parentSpanId as string } : {}),
                kind: span.kind as number,
                status: (span.status as ReceivedSpan["status"]) ?? {},
                attributes: record(span.attributes as KeyValue[]),
                resource: record(rs.resource?.attributes),
                scope: ss.scope?.name ?? "",
              });
            }
          }
        }
        for (const wake of [...waiters]) wake();
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    paths,
    spans: () => [...spans],
    waitForSpan: (test, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const hit = spans.find(test);
          if (!hit) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching span in ${timeoutMs} ms; received: ${JSON.stringify(spans.map((s) => s.name))}, posts: ${paths.join(" ")}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
