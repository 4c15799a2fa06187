import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeploymentSettings } from '../../infra/deployment-settings.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';
import type { TemplateResource } from './template-queries.ts';

/** Issue 23 item 4: the stack passes the OTLP endpoint, and the collector's headers by secret, to the functions. */
const stage = 'otel';
let plain: SynthesizedStack;
let traced: SynthesizedStack;

beforeAll(async () => {
  [plain, traced] = await Promise.all([
    synthesizeStack(stage),
    synthesizeStack(stage, { otelEndpoint: 'https://collector.example.com:4318', otelHeadersSecret: 'true' }),
  ]);
}, 120_000);

afterAll(async () => {
  await plain?.cleanup();
  await traced?.cleanup();
});

const variablesOf = (fn: TemplateResource) =>
  ((fn.Properties['Environment'] as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<
    string,
    unknown
  >;

describe('OpenTelemetry settings in the stack', () => {
  it('sets nothing without an endpoint', () => {
    for (const fn of Object.values(plain.resources).filter((resource) => resource.Type === 'AWS::Lambda::Function')) {
      expect(Object.keys(variablesOf(fn)).filter((name) => name.includes('OTEL'))).toEqual([]);
    }
  });

  it('gives every function the endpoint and protocol, and the functions that answer HTTP their headers secret', () => {
    const secret = `model-gateway/${stage}/otel-headers`;
    for (const [functionId, gatewayFunction] of traced.stack.functions) {
      const fn = traced.resources[traced.logicalIdOf(gatewayFunction.function)] as TemplateResource;
      expect(variablesOf(fn), functionId).toMatchObject({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example.com:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        GATEWAY_OTEL_HEADERS_SECRET: secret,
      });
      const policies = Object.values(traced.resources)
        .filter((resource) => resource.Type === 'AWS::IAM::Policy')
        .map((policy) => JSON.stringify(policy.Properties))
        .filter((policy) => policy.includes(traced.logicalIdOf(gatewayFunction.function.role as never)));
      expect(
        policies.some((policy) => policy.includes(`secret:${secret}-??????`)),
        functionId,
      ).toBe(true);
    }
  });

  it('refuses an endpoint that is not http(s) and a protocol it cannot speak', () => {
    expect(() => readDeploymentSettings((name) => ({ otelEndpoint: 'grpc://collector:4317' })[name])).toThrow(
      /otelEndpoint/,
    );
    expect(() => readDeploymentSettings((name) => ({ otelEndpoint: 'https://c', otelProtocol: 'grpc' })[name])).toThrow(
      /otelProtocol/,
    );
  });
});
