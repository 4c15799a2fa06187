/** The CloudWatch units the gateway's metrics use. */
export type MetricUnit = 'Count' | 'Milliseconds';

export type MetricValue = readonly [name: string, unit: MetricUnit, value: number];

/**
 * One CloudWatch embedded-metric-format line: the metrics of one event, under one namespace, with the single
 * `service` dimension every gateway metric carries, and plain metadata (a request id) beside them.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
 *
 * Written here rather than through Powertools Metrics: the gateway needs only this one shape, and the library's
 * stores, validation and cold-start bookkeeping were about 11 KB of every Lambda bundle (docs/bundles.md).
 */
export function emfLine(
  namespace: string,
  service: string,
  values: readonly MetricValue[],
  metadata: Readonly<Record<string, string>>,
  timestamp: number,
): string {
  const document: Record<string, unknown> = {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: namespace,
          Dimensions: [['service']],
          Metrics: values.map(([name, unit]) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    service,
    ...metadata,
  };
  for (const [name, , value] of values) document[name] = value;
  return JSON.stringify(document);
}
