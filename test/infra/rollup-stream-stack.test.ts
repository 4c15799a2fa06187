import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamFunctionProfiles } from '../../infra/stream-functions.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';
import type { TemplateResource } from './template-queries.ts';

/**
 * The rollups leave the request path on AWS: the records table streams its changes to a consumer function built
 * like every other (GatewayFunction), which folds closed records into the rollups; its failures, its lag and the
 * batches it gives up on each have an alarm.
 */
const stage = 'test';
let synthesized: SynthesizedStack;

beforeAll(async () => {
  synthesized = await synthesizeStack(stage);
}, 60_000);
afterAll(() => synthesized?.cleanup());

const resourcesOfType = (type: string): TemplateResource[] =>
  Object.values(synthesized.resources).filter((resource) => resource.Type === type);

function consumer() {
  const gatewayFunction = synthesized.stack.streamFunctions.get('rollup-stream');
  const source = synthesized.stack.streamConsumers.get('rollup-stream');
  const table = synthesized.stack.tables.get('usage');
  if (!gatewayFunction || !source || !table) throw new Error('no rollup stream consumer');
  return { gatewayFunction, deadLetters: source.deadLetters, table };
}

describe('the records stream and its consumer', () => {
  it('streams both images of every record change, from a table with no index to write', () => {
    const records = synthesized.resources[synthesized.logicalIdOf(consumer().table)]?.Properties ?? {};
    expect(records['StreamSpecification']).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(records['GlobalSecondaryIndexes']).toBeUndefined();
    expect(records['KeySchema']).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    // Nothing else streams: no other table has a consumer.
    const streaming = resourcesOfType('AWS::DynamoDB::Table').filter(
      (table) => table.Properties['StreamSpecification'],
    );
    expect(streaming).toHaveLength(1);
  });

  it('runs the consumer on closed records only, a shard at a time, splitting and retrying a failing batch', () => {
    const { gatewayFunction, deadLetters, table } = consumer();
    const profile = streamFunctionProfiles['rollup-stream'];
    const mappings = resourcesOfType('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.Properties).toMatchObject({
      FunctionName: { Ref: synthesized.logicalIdOf(gatewayFunction.function) },
      EventSourceArn: { 'Fn::GetAtt': [synthesized.logicalIdOf(table), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: profile.batchSize,
      MaximumBatchingWindowInSeconds: profile.maxBatchingWindow.toSeconds(),
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: profile.retryAttempts,
      MaximumRecordAgeInSeconds: profile.maxRecordAge.toSeconds(),
      ParallelizationFactor: 1,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [synthesized.logicalIdOf(deadLetters), 'Arn'] } },
      },
    });
    const criteria = mappings[0]?.Properties['FilterCriteria'] as { Filters: { Pattern: string }[] } | undefined;
    const filters = criteria?.Filters ?? [];
    expect(filters.map((filter) => JSON.parse(filter.Pattern))).toEqual([
      { dynamodb: { NewImage: { state: { S: [{ 'anything-but': ['running'] }] } } } },
    ]);
    // Built like every function: its own role and log group, no URL, its environment naming the tables.
    expect(gatewayFunction.functionUrl).toBeUndefined();
    const properties = synthesized.resources[synthesized.logicalIdOf(gatewayFunction.function)]?.Properties ?? {};
    expect(properties).toMatchObject({ Architectures: ['arm64'], Runtime: 'nodejs24.x' });
    const variables = (properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
    expect(variables['GATEWAY_TABLE_ROLLUPS']).toBeDefined();
  });

  it('keeps what it gives up on in an encrypted queue that refuses unencrypted transport', () => {
    const { deadLetters } = consumer();
    const queue = synthesized.resources[synthesized.logicalIdOf(deadLetters)]?.Properties ?? {};
    expect(queue).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    const policies = resourcesOfType('AWS::SQS::QueuePolicy').filter((policy) =>
      JSON.stringify(policy.Properties['Queues']).includes(synthesized.logicalIdOf(deadLetters)),
    );
    expect(JSON.stringify(policies)).toContain('"aws:SecureTransport":"false"');
  });

  it('alarms when the consumer fails, falls a minute behind, or gives a batch up', () => {
    const { gatewayFunction, deadLetters } = consumer();
    const [alarms] = synthesized.stack.alarms.streamConsumers;
    if (!alarms) throw new Error('no stream consumer alarms');
    const properties = (alarm: { node: unknown }) =>
      synthesized.resources[synthesized.logicalIdOf(alarm as never)]?.Properties ?? {};
    const functionDimension = [
      { Name: 'FunctionName', Value: { Ref: synthesized.logicalIdOf(gatewayFunction.function) } },
    ];
    expect(properties(alarms.errors)).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: functionDimension,
      Threshold: 1,
    });
    expect(properties(alarms.iteratorAge)).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Dimensions: functionDimension,
      Threshold: 60_000,
    });
    expect(properties(alarms.deadLetters)).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [synthesized.logicalIdOf(deadLetters), 'QueueName'] } }],
      Threshold: 1,
    });
  });
});
