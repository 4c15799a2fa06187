import { describe, expect, it } from 'vitest';
import { parseTelemetrySettings } from '../../shared/config/telemetry-config.ts';

describe('OpenTelemetry settings from the standard variables', () => {
  it('are off without an endpoint, and off when OTEL_SDK_DISABLED is true', () => {
    expect(parseTelemetrySettings({})).toBeUndefined();
    expect(
      parseTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }),
    ).toBeUndefined();
  });

  it('derive each signal`s URL from the base endpoint, or take the signal`s own', () => {
    const settings = parseTelemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example.com:4318/',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://metrics.example.com/ingest',
    });
    expect(settings?.traces).toEqual({
      url: 'https://collector.example.com:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
    });
    expect(settings?.metrics?.url).toBe('https://metrics.example.com/ingest');
    expect(
      parseTelemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/v1/traces' })?.metrics,
    ).toBeUndefined();
  });

  it('read protocols, headers, the service name, resource attributes, the sampler and propagation', () => {
    const settings = parseTelemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=abc%3D,x-dataset = gateway',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-dataset=traces',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes,deployment.environment.name=prod',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      GATEWAY_OTEL_PROPAGATE_UPSTREAM: 'true',
    });
    expect(settings?.traces).toMatchObject({
      protocol: 'http/protobuf',
      headers: { 'x-honeycomb-team': 'abc=', 'x-dataset': 'traces' },
    });
    expect(settings?.metrics).toMatchObject({ protocol: 'http/json', headers: { 'x-dataset': 'gateway' } });
    expect(settings?.serviceName).toBe('from-attributes');
    expect(settings?.resourceAttributes['deployment.environment.name']).toBe('prod');
    expect(settings?.sampler).toEqual({ name: 'parentbased_traceidratio', ratio: 0.25 });
    expect(settings?.propagateUpstream).toBe(true);
    const named = parseTelemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SERVICE_NAME: 'team-gateway',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=ignored',
    });
    expect(named?.serviceName).toBe('team-gateway');
    expect(parseTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' })).toMatchObject({
      serviceName: 'model-gateway',
      propagateUpstream: false,
      sampler: { name: 'parentbased_always_on', ratio: 1 },
    });
  });

  it('refuse what they cannot honour, naming the variable', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(() => parseTelemetrySettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL/,
    );
    expect(() => parseTelemetrySettings({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS/,
    );
    expect(() => parseTelemetrySettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(
      /OTEL_TRACES_SAMPLER/,
    );
    expect(() => parseTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });
});
