import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TelemetrySettings } from '../../config/telemetry-config.ts';

/**
 * The official OTLP/HTTP exporters, JSON or protobuf as `OTEL_EXPORTER_OTLP_PROTOCOL` says, each given its URL and
 * headers explicitly (telemetry-config.ts read the standard variables), and the resource the settings describe.
 */
export function createOtlpExporters(settings: TelemetrySettings): {
  spans: SpanExporter | undefined;
  metrics: PushMetricExporter | undefined;
  resource: Resource;
} {
  const { traces, metrics } = settings;
  return {
    spans:
      traces &&
      (traces.protocol === 'http/json'
        ? new JsonTraceExporter({ url: traces.url, headers: traces.headers })
        : new ProtobufTraceExporter({ url: traces.url, headers: traces.headers })),
    metrics:
      metrics &&
      (metrics.protocol === 'http/json'
        ? new JsonMetricExporter({ url: metrics.url, headers: metrics.headers })
        : new ProtobufMetricExporter({ url: metrics.url, headers: metrics.headers })),
    resource: resourceFromAttributes({ ...settings.resourceAttributes, [ATTR_SERVICE_NAME]: settings.serviceName }),
  };
}
