import * as z from '../validation/zod.ts';

/**
 * OpenTelemetry's standard environment variables, read once with the rest of the configuration (the exporters are
 * then given explicit settings, so a host that passes its own environment — the tests, the local host's options —
 * is honoured as Lambda's is). Telemetry is on when an OTLP endpoint is set and `OTEL_SDK_DISABLED` is not `true`.
 */
const otlpProtocols = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof otlpProtocols)[number];

const samplers = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof samplers)[number];

const protocol = z.optional(
  z.enum(otlpProtocols, { error: 'only OTLP over HTTP is supported: http/protobuf or http/json' }),
);

const telemetryEnvironment = z.object({
  OTEL_SDK_DISABLED: z.optional(z.string()),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.optional(z.url({ protocol: /^https?$/ })),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.optional(z.url({ protocol: /^https?$/ })),
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: z.optional(z.url({ protocol: /^https?$/ })),
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_HEADERS: z.optional(z.string()),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: z.optional(z.string()),
  OTEL_EXPORTER_OTLP_METRICS_HEADERS: z.optional(z.string()),
  OTEL_SERVICE_NAME: z.optional(z.string().check(z.minLength(1))),
  OTEL_RESOURCE_ATTRIBUTES: z.optional(z.string()),
  OTEL_TRACES_SAMPLER: z._default(z.enum(samplers), 'parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.optional(z.coerce.number().check(z.gte(0), z.lte(1))),
  OTEL_METRIC_EXPORT_INTERVAL: z._default(z.coerce.number().check(z.int(), z.positive()), 60_000),
  /**
   * Whether the trace context goes on to the upstream provider (`traceparent`). Off by default: a third-party
   * provider has no business with the team's trace ids.
   */
  GATEWAY_OTEL_PROPAGATE_UPSTREAM: z._default(z.enum(['true', 'false']), 'false'),
  /**
   * On AWS: the Secrets Manager secret holding the collector's headers (`key=value,…`, as
   * OTEL_EXPORTER_OTLP_HEADERS), read once at a function's first request, so an API key never sits in the
   * function's environment.
   */
  GATEWAY_OTEL_HEADERS_SECRET: z.optional(z.string().check(z.minLength(1))),
});

export interface OtlpTarget {
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
}

export interface TelemetrySettings {
  traces: OtlpTarget | undefined;
  metrics: OtlpTarget | undefined;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  sampler: { name: SamplerName; ratio: number };
  metricExportIntervalMs: number;
  propagateUpstream: boolean;
  /** Where more headers for both signals are kept (AWS); read by the host before telemetry starts. */
  headersSecret?: string | undefined;
}

/** `key=value,key2=value2` with percent-encoded values (the OTLP headers and resource attributes format). */
export function keyValueList(text: string | undefined, variable: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const item of (text ?? '').split(',')) {
    if (item.trim() === '') continue;
    const at = item.indexOf('=');
    const key = item.slice(0, at).trim();
    if (at <= 0 || key === '')
      throw new Error(`invalid gateway configuration: ${variable}: "${item}" is not key=value`);
    try {
      pairs[key] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new Error(`invalid gateway configuration: ${variable}: the value of "${key}" is not percent-encoded`);
    }
  }
  return pairs;
}

/** The signal's own endpoint as given, or the base endpoint with the signal's path (`/v1/traces`, `/v1/metrics`). */
function signalUrl(specific: string | undefined, base: string | undefined, path: string): string | undefined {
  if (specific !== undefined) return specific;
  if (base === undefined) return undefined;
  return `${base.replace(/\/+$/, '')}${path}`;
}

/** Telemetry settings, or undefined when telemetry is off. */
export function parseTelemetrySettings(environment: Record<string, string | undefined>): TelemetrySettings | undefined {
  const parsed = telemetryEnvironment.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`invalid gateway configuration: ${problems}`);
  }
  const env = parsed.data;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const baseHeaders = keyValueList(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS');
  const baseProtocol = env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  const target = (
    url: string | undefined,
    signalProtocol: OtlpProtocol | undefined,
    headers: string | undefined,
    variable: string,
  ): OtlpTarget | undefined =>
    url === undefined
      ? undefined
      : {
          url,
          protocol: signalProtocol ?? baseProtocol,
          headers: { ...baseHeaders, ...keyValueList(headers, variable) },
        };
  const traces = target(
    signalUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, env.OTEL_EXPORTER_OTLP_ENDPOINT, '/v1/traces'),
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
    env.OTEL_EXPORTER_OTLP_TRACES_HEADERS,
    'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  );
  const metrics = target(
    signalUrl(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, env.OTEL_EXPORTER_OTLP_ENDPOINT, '/v1/metrics'),
    env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL,
    env.OTEL_EXPORTER_OTLP_METRICS_HEADERS,
    'OTEL_EXPORTER_OTLP_METRICS_HEADERS',
  );
  if (!traces && !metrics) return undefined;
  const resourceAttributes = keyValueList(env.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES');
  return {
    traces,
    metrics,
    // OTEL_SERVICE_NAME wins over a `service.name` among the resource attributes, as the specification says.
    serviceName: env.OTEL_SERVICE_NAME ?? resourceAttributes['service.name'] ?? 'model-gateway',
    resourceAttributes,
    sampler: { name: env.OTEL_TRACES_SAMPLER, ratio: env.OTEL_TRACES_SAMPLER_ARG ?? 1 },
    metricExportIntervalMs: env.OTEL_METRIC_EXPORT_INTERVAL,
    propagateUpstream: env.GATEWAY_OTEL_PROPAGATE_UPSTREAM === 'true',
    headersSecret: env.GATEWAY_OTEL_HEADERS_SECRET,
  };
}

/** The settings with the collector headers kept in a secret added to both signals' own. */
export function withSecretHeaders(settings: TelemetrySettings, secretValue: string): TelemetrySettings {
  const headers = keyValueList(secretValue.trim(), 'the OpenTelemetry headers secret');
  const add = (target: OtlpTarget | undefined) => target && { ...target, headers: { ...target.headers, ...headers } };
  return { ...settings, traces: add(settings.traces), metrics: add(settings.metrics) };
}
