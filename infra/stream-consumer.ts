import { Duration, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { GatewayFunction } from './gateway-function.ts';
import type { StreamFunctionProfile } from './stream-functions.ts';

export interface StreamConsumerProps {
  readonly gatewayFunction: GatewayFunction;
  readonly table: Table;
  readonly profile: StreamFunctionProfile;
}

/**
 * A table's change stream wired to its consumer: batches of changes of closed records only (an event filter drops
 * the running writes before any invocation), one invocation per shard at a time, a failing batch retried and split
 * in two, and what is given up on sent to an encrypted dead-letter queue (its alarm asks for `usage
 * rebuild-rollups` of the days concerned).
 */
export class StreamConsumer extends Construct {
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: StreamConsumerProps) {
    super(scope, id);
    const { profile } = props;
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    props.gatewayFunction.function.addEventSource(
      new DynamoEventSource(props.table, {
        // From the oldest record the stream keeps (24 hours): a consumer deployed after the table misses nothing.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: profile.batchSize,
        maxBatchingWindow: profile.maxBatchingWindow,
        bisectBatchOnError: true,
        retryAttempts: profile.retryAttempts,
        maxRecordAge: profile.maxRecordAge,
        // The fold keeps one mark per record shard, which needs a shard's changes one batch at a time, in order.
        parallelizationFactor: 1,
        onFailure: new SqsDlq(this.deadLetters),
        filters: [FilterCriteria.filter({ dynamodb: { NewImage: { state: { S: FilterRule.notEquals('running') } } } })],
      }),
    );
    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is the dead-letter queue itself (the stream consumer sends the batches it gives up on here); ' +
        'its messages are read by the operator, who then rebuilds the rollups of those days from the records.',
    });
    // The stream grant lists streams on `*`: DynamoDB's ListStreams names no resource.
    Validations.of(props.gatewayFunction).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "dynamodb:ListStreams, which Lambda's stream poller calls with the function's role, takes no resource; " +
        'the reading actions name this one table stream.',
    });
  }
}
