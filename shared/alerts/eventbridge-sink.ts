import type { AlertSink } from './alert-sink.ts';

export interface EventBridgeTarget {
  busName: string;
  /** `model-gateway.<stage>`: what an EventBridge rule matches the gateway's events by. */
  source: string;
  region: string;
  /** Another endpoint than the region's (a VPC endpoint; a stand-in in tests). */
  endpoint?: string | undefined;
}

/**
 * Puts each alert on EventBridge (detail type = the alert's type, detail = the event). The client is loaded on first
 * use: only the reaper's pass delivers on AWS, so no request-path bundle carries it.
 */
export async function eventBridgeSink(target: EventBridgeTarget): Promise<AlertSink> {
  const { EventBridgeClient, PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
  const client = new EventBridgeClient({
    region: target.region,
    ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
  });
  return {
    name: 'eventbridge',
    async send(event, signal) {
      const result = await client.send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: target.busName,
              Source: target.source,
              DetailType: event.type,
              Detail: JSON.stringify(event),
            },
          ],
        }),
        { abortSignal: signal },
      );
      const failed = result.Entries?.[0];
      if ((result.FailedEntryCount ?? 0) > 0) {
        throw new Error(
          `EventBridge refused the event: ${failed?.ErrorCode ?? 'unknown'} ${failed?.ErrorMessage ?? ''}`,
        );
      }
    },
  };
}
