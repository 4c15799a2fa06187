import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One OTLP export as it arrived: the raw bytes (for scanning) and, for `http/json`, the parsed request. */
export interface OtlpExport {
  path: string;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  json: unknown;
}

/** A span as the tests read it: OTLP/JSON's fields with attributes as a plain object. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  points: { attributes: Record<string, unknown>; value: number; count?: number }[];
}

export interface OtlpReceiver {
  /** The base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`): exporters add `/v1/traces` and `/v1/metrics`. */
  url: string;
  readonly exports: OtlpExport[];
  spans(): ReceivedSpan[];
  metrics(): ReceivedMetric[];
  /** Everything every export carried, as one buffer: what a test scans for canaries. */
  everyByte(): Buffer;
  clear(): void;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

function plainValueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plainValueOf);
  return undefined;
}

const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((attribute) => [attribute.key, plainValueOf(attribute.value)]));

/**
 * An OTLP/HTTP receiver on a loopback port, as a collector would run it: it accepts `/v1/traces` and `/v1/metrics`
 * in both encodings, answers 200, and keeps each export. The gateway's real OpenTelemetry exporters send to it.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpExport[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const contentType = String(request.headers['content-type'] ?? '');
      exports.push({
        path: request.url ?? '',
        contentType,
        headers: request.headers,
        raw,
        json: contentType.includes('json') ? JSON.parse(raw.toString('utf8')) : undefined,
      });
      response.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : contentType });
      response.end(contentType.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans() {
      const spans: ReceivedSpan[] = [];
      for (const exported of exports) {
        if (!exported.path.endsWith('/v1/traces') || !exported.json) continue;
        const body = exported.json as {
          resourceSpans?: {
            resource?: { attributes?: KeyValue[] };
            scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes?: KeyValue[] })[] }[];
          }[];
        };
        for (const resourceSpans of body.resourceSpans ?? []) {
          const resource = attributesOf(resourceSpans.resource?.attributes);
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                ...span,
                parentSpanId: span.parentSpanId ?? '',
                attributes: attributesOf(span.attributes),
                resource,
              });
            }
          }
        }
      }
      return spans;
    },
    metrics() {
      const metrics = new Map<string, ReceivedMetric>();
      for (const exported of exports) {
        if (!exported.path.endsWith('/v1/metrics') || !exported.json) continue;
        const body = exported.json as {
          resourceMetrics?: { scopeMetrics?: { metrics?: Record<string, unknown>[] }[] }[];
        };
        for (const resourceMetrics of body.resourceMetrics ?? []) {
          for (const scope of resourceMetrics.scopeMetrics ?? []) {
            for (const metric of scope.metrics ?? []) {
              const name = String(metric['name']);
              const entry = metrics.get(name) ?? { name, unit: String(metric['unit'] ?? ''), points: [] };
              const data = (metric['histogram'] ?? metric['sum'] ?? metric['gauge']) as
                | {
                    dataPoints?: {
                      attributes?: KeyValue[];
                      sum?: number;
                      count?: string | number;
                      asInt?: string | number;
                      asDouble?: number;
                    }[];
                  }
                | undefined;
              for (const point of data?.dataPoints ?? []) {
                entry.points.push({
                  attributes: attributesOf(point.attributes),
                  value: Number(point.sum ?? point.asInt ?? point.asDouble ?? 0),
                  ...(point.count === undefined ? {} : { count: Number(point.count) }),
                });
              }
              metrics.set(name, entry);
            }
          }
        }
      }
      return [...metrics.values()];
    },
    everyByte: () => Buffer.concat(exports.map((exported) => exported.raw)),
    clear() {
      exports.length = 0;
    },
    close: () =>
      new Promise((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}
