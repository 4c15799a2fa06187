import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ScheduledFunctionId,
  scheduledFunctionIds,
  scheduledFunctionProfiles,
} from '../../infra/scheduled-functions.ts';
import { stackOutputKeys, tableOutputKey } from '../../infra/stack-outputs.ts';
import { backgroundFunctionIds } from '../../infra/stream-functions.ts';
import { functionIds } from '../../shared/http/route-table.ts';
import { gatewayMetricNames, metricsServiceName } from '../../shared/observability/metric-names.ts';
import { earlierUsageTable, tableDefinitions } from '../../shared/store/table-definitions.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';
import type { TemplateResource } from './template-queries.ts';

const stage = 'test';
let synthesized: SynthesizedStack;

beforeAll(async () => {
  synthesized = await synthesizeStack(stage);
}, 60_000);

afterAll(() => synthesized?.cleanup());

function resourcesOfType(type: string): TemplateResource[] {
  return Object.values(synthesized.resources).filter((resource) => resource.Type === type);
}

function scheduledLogicalId(functionId: ScheduledFunctionId): string {
  const scheduled = synthesized.stack.scheduledFunctions.get(functionId);
  if (!scheduled) throw new Error(`no ${functionId}`);
  return synthesized.logicalIdOf(scheduled.function);
}

describe('the scheduled functions (the reaper, the migration of the earlier layout)', () => {
  it('are the only rules', () => {
    expect(resourcesOfType('AWS::Events::Rule')).toHaveLength(scheduledFunctionIds.length);
  });

  it.each(scheduledFunctionIds)(
    '%s runs on an EventBridge schedule, without a function URL, retried by its next run only',
    (functionId) => {
      expect(synthesized.stack.scheduledFunctions.get(functionId)?.functionUrl).toBeUndefined();
      const logicalId = scheduledLogicalId(functionId);
      const rules = resourcesOfType('AWS::Events::Rule').filter((rule) =>
        JSON.stringify(rule.Properties['Targets']).includes(`"${logicalId}"`),
      );
      expect(rules).toHaveLength(1);
      const minutes = scheduledFunctionProfiles[functionId].every.toMinutes();
      expect(rules[0]?.Properties).toMatchObject({
        ScheduleExpression: `rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`,
        State: 'ENABLED',
        Targets: [{ Arn: { 'Fn::GetAtt': [logicalId, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } }],
      });
      const invokers = resourcesOfType('AWS::Lambda::Permission').filter((permission) =>
        JSON.stringify(permission.Properties['FunctionName']).includes(logicalId),
      );
      expect(invokers.map((permission) => permission.Properties['Principal'])).toEqual(['events.amazonaws.com']);
    },
  );

  it.each(scheduledFunctionIds)('%s is built with the same defaults as every other function', (functionId) => {
    const properties = synthesized.resources[scheduledLogicalId(functionId)]?.Properties ?? {};
    expect(properties['Runtime']).toBe('nodejs24.x');
    expect(properties['Architectures']).toEqual(['arm64']);
    expect(properties['Handler']).toBe('index.handler');
    const variables = (properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
    expect(variables['NODE_OPTIONS']).toBe('--enable-source-maps');
    expect(variables['GATEWAY_TABLE_CONTROL']).toBeDefined();
  });
});

describe('observability', () => {
  it('keeps every function log for a month', () => {
    const all = [
      ...synthesized.stack.functions.values(),
      ...synthesized.stack.scheduledFunctions.values(),
      ...synthesized.stack.streamFunctions.values(),
    ];
    expect(all).toHaveLength(functionIds.length + backgroundFunctionIds.length);
    for (const gatewayFunction of all) {
      const logGroup = synthesized.resources[synthesized.logicalIdOf(gatewayFunction.function.logGroup)];
      expect(logGroup?.Properties['RetentionInDays']).toBe(30);
    }
  });

  it('names the metrics namespace of the stage in every function and in the alarms', () => {
    const namespace = `ModelGateway/${stage}`;
    for (const gatewayFunction of [
      ...synthesized.stack.functions.values(),
      ...synthesized.stack.scheduledFunctions.values(),
      ...synthesized.stack.streamFunctions.values(),
    ]) {
      const properties = synthesized.resources[synthesized.logicalIdOf(gatewayFunction.function)]?.Properties ?? {};
      const variables = (properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
      expect(variables['GATEWAY_METRICS_NAMESPACE']).toBe(namespace);
    }
    const rate = synthesized.resources[synthesized.logicalIdOf(synthesized.stack.alarms.serverErrorRate)];
    const metrics = rate?.Properties['Metrics'] as { MetricStat?: { Metric: Record<string, unknown> } }[];
    expect(metrics.flatMap((metric) => (metric.MetricStat ? [metric.MetricStat.Metric] : []))).toEqual([
      {
        Namespace: namespace,
        MetricName: gatewayMetricNames.responses,
        Dimensions: [{ Name: 'service', Value: metricsServiceName }],
      },
      {
        Namespace: namespace,
        MetricName: gatewayMetricNames.serverErrorResponses,
        Dimensions: [{ Name: 'service', Value: metricsServiceName }],
      },
    ]);
    expect(rate?.Properties).toMatchObject({ Threshold: 5, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
  });

  it('alarms on throttles of every function', () => {
    const throttled = synthesized.stack.alarms.throttles.map((alarm) => {
      const properties = synthesized.resources[synthesized.logicalIdOf(alarm)]?.Properties ?? {};
      expect(properties).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Throttles', Threshold: 1 });
      return JSON.stringify(properties['Dimensions']);
    });
    const all = [
      ...synthesized.stack.functions.values(),
      ...synthesized.stack.scheduledFunctions.values(),
      ...synthesized.stack.streamFunctions.values(),
    ];
    expect(throttled.toSorted()).toEqual(
      all
        .map((gatewayFunction) =>
          JSON.stringify([{ Name: 'FunctionName', Value: { Ref: synthesized.logicalIdOf(gatewayFunction.function) } }]),
        )
        .toSorted(),
    );
  });

  it('alarms when the reaper fails or stops running, so dead requests keep their reservations', () => {
    const backlog = synthesized.resources[synthesized.logicalIdOf(synthesized.stack.alarms.reaperBacklog)];
    expect(backlog?.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: scheduledLogicalId('reaper') } }],
      Period: scheduledFunctionProfiles.reaper.every.toSeconds(),
      EvaluationPeriods: 3,
      TreatMissingData: 'breaching',
    });
  });
});

describe('the migration of the earlier layout', () => {
  it('alarms when its scheduled pass fails three times in a row', () => {
    const alarm = synthesized.stack.alarms.earlierMigrationFailing;
    if (!alarm) throw new Error('no alarm on the migration');
    const failing = synthesized.resources[synthesized.logicalIdOf(alarm)];
    expect(failing?.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: scheduledLogicalId('migrate-earlier-records') } }],
      Period: scheduledFunctionProfiles['migrate-earlier-records'].every.toSeconds(),
      EvaluationPeriods: 3,
      Threshold: 1,
    });
  });
});

describe('stack outputs', () => {
  it('tell the gateway and usage page addresses and what the CLI bootstrap reads', () => {
    const outputs = synthesized.template.toJSON()['Outputs'] as Record<string, { Value: unknown }>;
    const distributionId = synthesized.logicalIdOf(synthesized.stack.gatewayDistribution.distribution);
    const gatewayUrl = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] };
    expect(outputs[stackOutputKeys.gatewayUrl]?.Value).toEqual(gatewayUrl);
    expect(outputs[stackOutputKeys.usagePageUrl]?.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/app/usage']],
    });
    expect(outputs[stackOutputKeys.stage]?.Value).toBe(stage);
    expect(outputs[stackOutputKeys.region]?.Value).toEqual({ Ref: 'AWS::Region' });
    // The earlier layout's records table too: the table a team deletes once the migration has carried its records.
    for (const definition of [...tableDefinitions, earlierUsageTable]) {
      const table = synthesized.stack.tables.get(definition.logicalName);
      if (!table) throw new Error(`no table ${definition.logicalName}`);
      expect(outputs[tableOutputKey(definition.logicalName)]?.Value).toEqual({ Ref: synthesized.logicalIdOf(table) });
    }
  });
});
