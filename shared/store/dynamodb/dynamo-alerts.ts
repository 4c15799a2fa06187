import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AlertDelivery, StoredAlert } from '../../alerts/alert-delivery-state.ts';
import type { AlertEvent } from '../../alerts/alert-event.ts';
import type { AlertPosition, AlertStore } from '../store-port.ts';
import { getControlItems, putControlItemOnce } from './control-reads.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';

/**
 * One control item per alert id. Its `id` attribute, the kind index's sort key, is `<raised at>#<alert id>`, so the
 * index lists alerts newest first without a table of their own; the conditional put on the alert's key is the
 * once-only write.
 */
interface AlertItem {
  pk: string;
  kind: 'alert';
  id: string;
  event: AlertEvent;
  delivery: AlertDelivery;
}

const alertKind = 'alert';
const alertKey = (id: string) => `alert#${id}`;
const indexSortKey = (position: AlertPosition) => `${position.at}#${position.id}`;

/**
 * Pending deliveries are looked for among the newest alerts only: a delivery is retried for minutes, not days, and
 * alerts are few, so a due alert is never further down the list than this.
 */
const dueWindow = 200;

/** The once-only write of an alert: what the request path needs of the outbox. */
export function recordAlert(tables: DynamoTables, event: AlertEvent, delivery: AlertDelivery): Promise<boolean> {
  const item: AlertItem = { pk: alertKey(event.id), kind: alertKind, id: indexSortKey(event), event, delivery };
  return putControlItemOnce(tables, item);
}

export function dynamoAlerts(tables: DynamoTables): AlertStore {
  /** One page of the kind index, newest first, read whole from the table in one batch. */
  async function readPage(
    after: AlertPosition | undefined,
    take: number,
  ): Promise<{ items: AlertItem[]; more: boolean }> {
    const page = await tables.client.send(
      new QueryCommand({
        TableName: tables.names.control,
        IndexName: 'kind-index',
        KeyConditionExpression: '#kind = :kind',
        ExpressionAttributeNames: { '#kind': 'kind' },
        ExpressionAttributeValues: { ':kind': alertKind },
        ScanIndexForward: false,
        Limit: take,
        ExclusiveStartKey: after && { pk: alertKey(after.id), kind: alertKind, id: indexSortKey(after) },
      }),
    );
    const keys = (page.Items ?? []).map((item) => String(item['pk']));
    const order = new Map(keys.map((pk, index) => [pk, index]));
    const items = (await getControlItems<AlertItem>(tables, keys)).sort(
      (a, b) => (order.get(a.pk) ?? 0) - (order.get(b.pk) ?? 0),
    );
    return { items, more: page.LastEvaluatedKey !== undefined };
  }

  const toStored = (item: AlertItem): StoredAlert => ({ event: item.event, delivery: item.delivery });

  return {
    record: (event, delivery) => recordAlert(tables, event, delivery),

    async due(now, limit) {
      const { items } = await readPage(undefined, dueWindow);
      return items
        .filter((item) => item.delivery.state === 'pending' && item.delivery.nextAttemptAt <= now)
        .sort((a, b) => dueTime(a).localeCompare(dueTime(b)))
        .slice(0, limit)
        .map(toStored);
    },

    async setDelivery(id, delivery) {
      await tables.client
        .send(
          new UpdateCommand({
            TableName: tables.names.control,
            Key: { pk: alertKey(id) },
            UpdateExpression: 'SET delivery = :delivery',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':delivery': delivery },
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        });
    },

    async list({ limit, after, type }) {
      const alerts: StoredAlert[] = [];
      let position = after;
      // A type filter reads on until the page is full: the index holds no type to query by.
      for (;;) {
        const { items, more } = await readPage(position, limit + 1 - alerts.length);
        for (const item of items) if (type === undefined || item.event.type === type) alerts.push(toStored(item));
        const last = items.at(-1);
        if (alerts.length > limit || !more || !last) break;
        position = { at: last.event.at, id: last.event.id };
      }
      const page = alerts.slice(0, limit);
      const lastShown = page.at(-1);
      return {
        alerts: page,
        next: alerts.length > limit && lastShown ? { at: lastShown.event.at, id: lastShown.event.id } : null,
      };
    },
  };
}

function dueTime(item: AlertItem): string {
  return item.delivery.state === 'pending' ? item.delivery.nextAttemptAt : '';
}
