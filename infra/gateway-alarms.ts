import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { gatewayMetricNames, metricsServiceName } from '../shared/observability/metric-names.ts';
import type { GatewayFunction } from './gateway-function.ts';

export interface GatewayAlarmsProps {
  /** The namespace the functions emit their EMF metrics under (`GATEWAY_METRICS_NAMESPACE`). */
  readonly metricsNamespace: string;
  /** Every function of the stack, each watched for throttles. */
  readonly functions: ReadonlyMap<string, GatewayFunction>;
  readonly reaper: GatewayFunction;
  /** How often the reaper runs; its alarm looks at windows of this length. */
  readonly reaperPeriod: Duration;
  /** The scheduled migration of the earlier layout's usage history, and how often it runs (none once retired). */
  readonly earlierMigration?: GatewayFunction;
  readonly earlierMigrationPeriod?: Duration;
  /** Functions a table's stream runs, each with the dead-letter queue of the batches it gives up on. */
  readonly streamConsumers: readonly { functionId: string; gatewayFunction: GatewayFunction; deadLetters: Queue }[];
}

const period = Duration.minutes(5);

/**
 * The alarms an operator needs first: clients getting 5xx answers, Lambda refusing invocations, and the reaper
 * falling behind (so reservations of dead requests stay held). They carry no action: subscribe a topic to them
 * where the team wants to be told.
 */
export class GatewayAlarms extends Construct {
  readonly serverErrorRate: Alarm;
  readonly throttles: readonly Alarm[];
  readonly reaperBacklog: Alarm;
  readonly earlierMigrationFailing: Alarm | undefined;
  /** Per stream consumer: failing batches, falling behind the stream, and batches given up on. */
  readonly streamConsumers: readonly { errors: Alarm; iteratorAge: Alarm; deadLetters: Alarm }[];

  constructor(scope: Construct, id: string, props: GatewayAlarmsProps) {
    super(scope, id);
    const gatewayMetric = (metricName: string) =>
      new Metric({
        namespace: props.metricsNamespace,
        metricName,
        dimensionsMap: { service: metricsServiceName },
        statistic: Stats.SUM,
        period,
      });

    this.serverErrorRate = new Alarm(this, 'ServerErrorRate', {
      alarmDescription: 'More than 5% of gateway responses were 5xx in two of three 5-minute windows.',
      metric: new MathExpression({
        // A handful of requests is no rate: one failure of two must not wake anyone.
        expression: 'IF(responses >= 20, 100 * errors / responses, 0)',
        usingMetrics: {
          responses: gatewayMetric(gatewayMetricNames.responses),
          errors: gatewayMetric(gatewayMetricNames.serverErrorResponses),
        },
        label: '5xx responses (%)',
        period,
      }),
      threshold: 5,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    // One alarm per function: an alarm's metric math may read at most ten metrics, and the count of functions
    // grows with the wires.
    this.throttles = [...props.functions].map(
      ([functionId, gatewayFunction]) =>
        new Alarm(this, `Throttles-${functionId}`, {
          alarmDescription: `Lambda throttled ${functionId}: its reserved or the account's concurrency ran out.`,
          metric: gatewayFunction.function.metricThrottles({ period, statistic: Stats.SUM }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
    );

    this.reaperBacklog = new Alarm(this, 'ReaperBacklog', {
      alarmDescription:
        'The reaper failed, or did not run, in three windows in a row: requests whose function died keep their ' +
        'reservations and leases until it settles them.',
      metric: props.reaper.function.metricErrors({ period: props.reaperPeriod, statistic: Stats.SUM }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      // Lambda reports no errors datapoint for a window without invocations: a reaper that stopped running is
      // a backlog as well.
      treatMissingData: TreatMissingData.BREACHING,
    });

    this.earlierMigrationFailing =
      props.earlierMigration &&
      new Alarm(this, 'EarlierMigrationFailing', {
        alarmDescription:
          "The migration of the earlier layout's usage history failed in three passes in a row: the usage view lacks " +
          'that history until it completes (`usage migrate-earlier-records --status` tells where it stands).',
        metric: props.earlierMigration.function.metricErrors({
          period: props.earlierMigrationPeriod ?? period,
          statistic: Stats.SUM,
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
        // Once complete, each pass only reads where it stands; a pass that does not run has nothing to report.
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });

    this.streamConsumers = props.streamConsumers.map(({ functionId, gatewayFunction, deadLetters }) => ({
      errors: new Alarm(this, `StreamErrors-${functionId}`, {
        alarmDescription:
          `${functionId} failed batches in two 5-minute windows in a row: the rollups fall behind the records ` +
          'while Lambda retries them.',
        metric: gatewayFunction.function.metricErrors({ period, statistic: Stats.SUM }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      iteratorAge: new Alarm(this, `StreamIteratorAge-${functionId}`, {
        alarmDescription: `${functionId} is more than a minute behind its stream: the usage view's rollups are that late.`,
        metric: gatewayFunction.function.metric('IteratorAge', { period, statistic: Stats.MAXIMUM }),
        threshold: 60_000,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      deadLetters: new Alarm(this, `StreamDeadLetters-${functionId}`, {
        alarmDescription:
          `${functionId} gave a batch up to its dead-letter queue: those requests are missing from the rollups ` +
          'until `usage rebuild-rollups` rebuilds their days from the records.',
        metric: deadLetters.metricApproximateNumberOfMessagesVisible({ period, statistic: Stats.MAXIMUM }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    }));
  }
}
