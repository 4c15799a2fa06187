import {
  type Attributes,
  type Context,
  type Counter,
  context,
  type Histogram,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type UpDownCounter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { TelemetrySettings } from '../../config/telemetry-config.ts';
import type { RequestTrace, RoutedRequest, SettledRequest, TelemetryPort } from '../request-trace.ts';
import { createOtlpExporters } from './otlp-exporters.ts';
import { createSampler } from './sampler.ts';
import { gatewayAttributes, gatewayMetricNames, genAiAttributes, genAiMetricNames } from './semantic-names.ts';

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

interface Instruments {
  tokenUsage: Histogram;
  operationDuration: Histogram;
  timeToFirstChunk: Histogram;
  refusals: Counter;
  reservationsOutstanding: UpDownCounter;
  settlements: Counter;
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
  const instruments: Instruments = {
    tokenUsage: meter.createHistogram(genAiMetricNames.tokenUsage, {
      unit: '{token}',
      description: 'Number of input and output tokens used.',
      advice: {
        explicitBucketBoundaries: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216],
      },
    }),
    operationDuration: meter.createHistogram(genAiMetricNames.operationDuration, {
      unit: 's',
      description: 'GenAI operation duration.',
      advice: {
        explicitBucketBoundaries: [
          0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
        ],
      },
    }),
    timeToFirstChunk: meter.createHistogram(genAiMetricNames.timeToFirstChunk, {
      unit: 's',
      description: 'Time from the request to the first chunk of a streamed answer.',
      advice: { explicitBucketBoundaries: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24] },
    }),
    refusals: meter.createCounter(gatewayMetricNames.refusals, {
      description: 'Requests refused before dispatch, by the gateway code.',
    }),
    reservationsOutstanding: meter.createUpDownCounter(gatewayMetricNames.reservationsOutstanding, {
      unit: '{token}',
      description: 'Tokens reserved by admitted requests that have not settled yet.',
    }),
    settlements: meter.createCounter(gatewayMetricNames.settlements, {
      description: 'Settled requests, by accounting source and state.',
    }),
  };

  return {
    startRequest(start) {
      const parent = propagator.extract(ROOT_CONTEXT, start.headers, headerGetter);
      return new OtelRequestTrace(tracer, instruments, parent, start.clientWire, settings.propagateUpstream);
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
  #serverAddress: string | undefined;
  #ended = false;

  constructor(
    private readonly tracer: ReturnType<TracerProvider['getTracer']>,
    private readonly instruments: Instruments,
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
    this.#server.updateName(`${request.operation} ${request.requestModel}`);
    this.#server.setAttributes({
      ...this.#requestAttributes(),
      [genAiAttributes.requestMaxTokens]: request.maxTokens,
      [gatewayAttributes.requestId]: request.requestId,
      [gatewayAttributes.memberId]: request.memberId,
      [gatewayAttributes.keyId]: request.keyId,
      [gatewayAttributes.stream]: request.stream,
    });
  }

  admitted(reservation: number): void {
    this.#reservation = reservation;
    this.#server.setAttribute(gatewayAttributes.reservation, reservation);
    this.instruments.reservationsOutstanding.add(reservation, this.#metricAttributes());
  }

  upstreamStarting(target: { url: string }): Record<string, string> {
    const url = new URL(target.url);
    this.#serverAddress = url.hostname;
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    this.#upstreamStarted = performance.now();
    this.#upstream = this.tracer.startSpan(
      this.#routed ? `${this.#routed.operation} ${this.#routed.requestModel}` : 'upstream',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          ...this.#requestAttributes(),
          [genAiAttributes.requestMaxTokens]: this.#routed?.maxTokens,
          [genAiAttributes.serverAddress]: url.hostname,
          [genAiAttributes.serverPort]: port,
        },
      },
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
    this.instruments.timeToFirstChunk.record(
      (performance.now() - this.#upstreamStarted) / 1000,
      this.#metricAttributes(),
    );
  }

  refused(failure: { status: number; code: string }): void {
    if (this.#ended) return;
    this.#ended = true;
    this.instruments.refusals.add(1, { [gatewayAttributes.refusalCode]: failure.code });
    this.#server.setAttributes({
      [genAiAttributes.errorType]: failure.code,
      [gatewayAttributes.refusalCode]: failure.code,
      [genAiAttributes.httpStatus]: failure.status,
    });
    this.#server.setStatus({ code: SpanStatusCode.ERROR, message: failure.code });
    this.#upstream?.end();
    this.#server.end();
  }

  settled(settled: SettledRequest): void {
    if (this.#ended) return;
    this.#ended = true;
    const usage: Attributes = {
      [genAiAttributes.responseModel]: settled.responseModel,
      [genAiAttributes.inputTokens]: settled.inputTokens ?? undefined,
      [genAiAttributes.outputTokens]: settled.outputTokens ?? undefined,
      [genAiAttributes.cacheReadInputTokens]: settled.cachedInputTokens ?? undefined,
      [genAiAttributes.finishReasons]: settled.finishReasons.length > 0 ? [...settled.finishReasons] : undefined,
    };
    const failed = settled.errorCode !== undefined || settled.state !== 'completed';
    const errorType = failed ? (settled.errorCode ?? String(settled.status)) : undefined;
    if (this.#upstream) {
      this.#upstream.setAttributes({ ...usage, [genAiAttributes.errorType]: errorType });
      if (failed) this.#upstream.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
      this.#upstream.end();
    }
    this.#server.setAttributes({
      ...usage,
      [genAiAttributes.httpStatus]: settled.status,
      [genAiAttributes.errorType]: errorType,
      [gatewayAttributes.charge]: settled.charge,
      [gatewayAttributes.accountingSource]: settled.accountingSource,
      [gatewayAttributes.state]: settled.state,
    });
    if (failed) this.#server.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
    this.#server.end();

    const attributes = { ...this.#metricAttributes(), [genAiAttributes.responseModel]: settled.responseModel };
    this.instruments.operationDuration.record((performance.now() - this.#started) / 1000, {
      ...attributes,
      ...(errorType === undefined ? {} : { [genAiAttributes.errorType]: errorType }),
    });
    if (settled.inputTokens !== null) {
      this.instruments.tokenUsage.record(settled.inputTokens, { ...attributes, [genAiAttributes.tokenType]: 'input' });
    }
    if (settled.outputTokens !== null) {
      this.instruments.tokenUsage.record(settled.outputTokens, {
        ...attributes,
        [genAiAttributes.tokenType]: 'output',
      });
    }
    this.instruments.reservationsOutstanding.add(-this.#reservation, this.#metricAttributes());
    this.instruments.settlements.add(1, {
      [gatewayAttributes.accountingSource]: settled.accountingSource,
      [gatewayAttributes.state]: settled.state,
    });
  }

  #requestAttributes(): Attributes {
    const routed = this.#routed;
    if (!routed) return {};
    return {
      [genAiAttributes.operationName]: routed.operation,
      [genAiAttributes.providerName]: routed.provider,
      [genAiAttributes.requestModel]: routed.requestModel,
    };
  }

  /** Low-cardinality attributes only: metrics never carry member, key or request ids. */
  #metricAttributes(): Attributes {
    return {
      ...this.#requestAttributes(),
      ...(this.#serverAddress === undefined ? {} : { [genAiAttributes.serverAddress]: this.#serverAddress }),
    };
  }
}
