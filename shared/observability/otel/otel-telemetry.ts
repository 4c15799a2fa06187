import {
  type Attributes,
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { remembered } from '../../cache/remembered.ts';
import type { TelemetrySettings } from '../../config/telemetry-config.ts';
import type { RequestTrace, RoutedRequest, SettledRequest, TelemetryPort } from '../request-trace.ts';
import { GatewayMetrics, type MetricSet } from './gateway-metrics.ts';
import { createOtlpExporters } from './otlp-exporters.ts';
import { createSampler } from './sampler.ts';
import { gatewayAttributes, genAiAttributes } from './semantic-names.ts';

const propagator = new W3CTraceContextPropagator();
const headerGetter = {
  keys: (carrier: Readonly<Record<string, string | undefined>>) => Object.keys(carrier),
  get: (carrier: Readonly<Record<string, string | undefined>>, key: string) => carrier[key.toLowerCase()],
};
const headerSetter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

/** Where an upstream URL points, parsed once per URL (a connection's few endpoints), for the client span. */
interface UpstreamAddress {
  hostname: string;
  port: number;
}

/**
 * The telemetry port on the OpenTelemetry SDK: a server span per request and a client span per upstream call in the
 * GenAI semantic conventions, the GenAI client metrics and the gateway's own, exported over OTLP/HTTP. Providers are
 * this module's own (nothing is registered globally), so the gateway's telemetry never mixes with an embedding
 * application's.
 */
export function createOtelTelemetry(settings: TelemetrySettings, version: string): TelemetryPort {
  const exporters = createOtlpExporters(settings);
  const resource = exporters.resource;
  const tracerProvider = new TracerProvider({
    resource,
    sampler: createSampler(settings.sampler),
    spanProcessors: exporters.spans ? [new BatchSpanProcessor({ exporter: exporters.spans })] : [],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: exporters.metrics
      ? [
          new PeriodicExportingMetricReader({
            exporter: exporters.metrics,
            exportIntervalMillis: settings.metricExportIntervalMs,
          }),
        ]
      : [],
  });
  const tracer = tracerProvider.getTracer('model-gateway', version);
  const meter = meterProvider.getMeter('model-gateway', version);
  const metrics = new GatewayMetrics(meter);
  const addressOf = remembered((url): UpstreamAddress => {
    const parsed = new URL(url);
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
    return { hostname: parsed.hostname, port };
  }, 1_000);

  return {
    startRequest(start) {
      const parent = propagator.extract(ROOT_CONTEXT, start.headers, headerGetter);
      return new OtelRequestTrace(tracer, metrics, addressOf, parent, start.clientWire, settings.propagateUpstream);
    },
    async flush() {
      await Promise.all([tracerProvider.forceFlush(), meterProvider.forceFlush()]);
    },
    async shutdown() {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

class OtelRequestTrace implements RequestTrace {
  readonly #server: Span;
  readonly #started = performance.now();
  #upstream: Span | undefined;
  #upstreamStarted = 0;
  #routed: RoutedRequest | undefined;
  #reservation = 0;
  /** The set the reservation was counted under (before the upstream's address was known). */
  #reservedSet: MetricSet | undefined;
  #serverAddress: string | undefined;
  #metricSet: MetricSet | undefined;
  #ended = false;

  constructor(
    private readonly tracer: ReturnType<TracerProvider['getTracer']>,
    private readonly metrics: GatewayMetrics,
    private readonly addressOf: (url: string) => UpstreamAddress,
    parent: Context,
    clientWire: string,
    private readonly propagateUpstream: boolean,
  ) {
    // Named once routed (`<operation> <model>`); until then, by the wire the client spoke.
    this.#server = tracer.startSpan(
      clientWire,
      { kind: SpanKind.SERVER, attributes: { [gatewayAttributes.clientWire]: clientWire } },
      parent,
    );
  }

  routed(request: RoutedRequest): void {
    this.#routed = request;
    this.#metricSet = undefined;
    const span = this.#server;
    span.updateName(`${request.operation} ${request.requestModel}`);
    span.setAttribute(genAiAttributes.operationName, request.operation);
    span.setAttribute(genAiAttributes.providerName, request.provider);
    span.setAttribute(genAiAttributes.requestModel, request.requestModel);
    span.setAttribute(genAiAttributes.requestMaxTokens, request.maxTokens);
    span.setAttribute(gatewayAttributes.requestId, request.requestId);
    span.setAttribute(gatewayAttributes.memberId, request.memberId);
    span.setAttribute(gatewayAttributes.keyId, request.keyId);
    span.setAttribute(gatewayAttributes.stream, request.stream);
  }

  admitted(reservation: number): void {
    this.#reservation = reservation;
    this.#server.setAttribute(gatewayAttributes.reservation, reservation);
    this.#reservedSet = this.#metrics();
    this.metrics.reserved(this.#reservedSet, reservation);
  }

  upstreamStarting(target: { url: string }): Record<string, string> {
    const { hostname, port } = this.addressOf(target.url);
    this.#serverAddress = hostname;
    this.#metricSet = undefined;
    this.#upstreamStarted = performance.now();
    const routed = this.#routed;
    const attributes: Attributes = { [genAiAttributes.serverAddress]: hostname, [genAiAttributes.serverPort]: port };
    if (routed) {
      attributes[genAiAttributes.operationName] = routed.operation;
      attributes[genAiAttributes.providerName] = routed.provider;
      attributes[genAiAttributes.requestModel] = routed.requestModel;
      attributes[genAiAttributes.requestMaxTokens] = routed.maxTokens;
    }
    this.#upstream = this.tracer.startSpan(
      routed ? `${routed.operation} ${routed.requestModel}` : 'upstream',
      { kind: SpanKind.CLIENT, attributes },
      trace.setSpan(context.active(), this.#server),
    );
    if (!this.propagateUpstream) return {};
    const headers: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, this.#upstream), headers, headerSetter);
    return headers;
  }

  upstreamAnswered(status: number): void {
    this.#upstream?.setAttribute(genAiAttributes.httpStatus, status);
  }

  firstChunk(): void {
    if (!this.#upstreamStarted) return;
    this.metrics.firstChunk(this.#metrics(), (performance.now() - this.#upstreamStarted) / 1000);
  }

  refused(failure: { status: number; code: string }): void {
    if (this.#ended) return;
    this.#ended = true;
    this.metrics.refused(failure.code);
    this.#server.setAttribute(genAiAttributes.errorType, failure.code);
    this.#server.setAttribute(gatewayAttributes.refusalCode, failure.code);
    this.#server.setAttribute(genAiAttributes.httpStatus, failure.status);
    this.#server.setStatus({ code: SpanStatusCode.ERROR, message: failure.code });
    this.#upstream?.end();
    this.#server.end();
  }

  settled(settled: SettledRequest): void {
    if (this.#ended) return;
    this.#ended = true;
    const failed = settled.errorCode !== undefined || settled.state !== 'completed';
    const errorType = failed ? (settled.errorCode ?? String(settled.status)) : undefined;
    if (this.#upstream) {
      setUsage(this.#upstream, settled, errorType);
      if (failed) this.#upstream.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
      this.#upstream.end();
    }
    const server = this.#server;
    setUsage(server, settled, errorType);
    server.setAttribute(genAiAttributes.httpStatus, settled.status);
    server.setAttribute(gatewayAttributes.charge, settled.charge);
    server.setAttribute(gatewayAttributes.accountingSource, settled.accountingSource);
    server.setAttribute(gatewayAttributes.state, settled.state);
    if (failed) server.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
    server.end();

    if (this.#reservedSet) this.metrics.released(this.#reservedSet, this.#reservation);
    this.metrics.ended(this.#metrics(), {
      seconds: (performance.now() - this.#started) / 1000,
      responseModel: settled.responseModel,
      errorType,
      inputTokens: settled.inputTokens,
      outputTokens: settled.outputTokens,
      accountingSource: settled.accountingSource,
      state: settled.state,
    });
  }

  /** The request's metric set as now known, built once per change (routing, then the upstream's address). */
  #metrics(): MetricSet {
    this.#metricSet ??= this.metrics.requestSet(this.#routed, this.#serverAddress);
    return this.#metricSet;
  }
}

/** The answer's model, tokens and finish reasons on a span, and the error type when the request failed. */
function setUsage(span: Span, settled: SettledRequest, errorType: string | undefined): void {
  if (settled.responseModel !== undefined) span.setAttribute(genAiAttributes.responseModel, settled.responseModel);
  if (settled.inputTokens !== null) span.setAttribute(genAiAttributes.inputTokens, settled.inputTokens);
  if (settled.outputTokens !== null) span.setAttribute(genAiAttributes.outputTokens, settled.outputTokens);
  if (settled.cachedInputTokens !== null) {
    span.setAttribute(genAiAttributes.cacheReadInputTokens, settled.cachedInputTokens);
  }
  if (settled.finishReasons.length > 0) span.setAttribute(genAiAttributes.finishReasons, [...settled.finishReasons]);
  if (errorType !== undefined) span.setAttribute(genAiAttributes.errorType, errorType);
}
