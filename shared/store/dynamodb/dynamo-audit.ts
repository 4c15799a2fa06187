import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry, AuditQuery } from '../audit-entries.ts';
import type { AuditStore } from '../store-port.ts';
import { getControlItems } from './control-reads.ts';
import type { DynamoTables } from './dynamo-tables.ts';

/**
 * The audit log in the control table, read through its keys-only `kind-index` (partition `kind`, sort `id`): each
 * entry is one item of kind `audit` whose index sort key is `<at>#<entry id>`, so the index lists the log newest
 * first; and, for each filter, a small pointer item of kind `audit-actor#<member>`, `audit-action#<action>` or
 * `audit-target#<id>` with the same sort key. A filtered page is then one Query of the narrowest partition plus one
 * BatchGet of the page's entries: no scan, however long the log. An entry is four small puts, sent together (not
 * one BatchWrite: no function is granted BatchWriteItem, which takes no condition); administrative changes are rare,
 * so the extra writes cost little, and the keys are the entry's own, so a retry writes the same four items again.
 */
const entryKey = (id: string) => `audit#${id}`;
const sortKeyOf = (entry: { at: string; id: string }) => `${entry.at}#${entry.id}`;
const filterKinds = {
  actor: (memberId: string) => `audit-actor#${memberId}`,
  action: (action: string) => `audit-action#${action}`,
  target: (id: string) => `audit-target#${id}`,
};

export function dynamoAudit(tables: DynamoTables): AuditStore {
  const tableName = tables.names.control;
  return {
    async append(entry) {
      const sortKey = sortKeyOf(entry);
      const pointers = [
        filterKinds.actor(entry.actor.memberId),
        filterKinds.action(entry.action),
        filterKinds.target(entry.target.id),
      ].map((kind) => ({ pk: `${kind}#${entry.id}`, kind, id: sortKey }));
      const items = [{ pk: entryKey(entry.id), kind: 'audit', ...entry, id: sortKey, entryId: entry.id }, ...pointers];
      await Promise.all(items.map((item) => tables.client.send(new PutCommand({ TableName: tableName, Item: item }))));
    },

    async list(query) {
      // The narrowest partition the query names; the other filters are checked on the entries read.
      const kind =
        query.target !== undefined
          ? filterKinds.target(query.target)
          : query.actor !== undefined
            ? filterKinds.actor(query.actor)
            : query.action !== undefined
              ? filterKinds.action(query.action)
              : 'audit';
      const entries: AuditEntry[] = [];
      let startKey: Record<string, unknown> | undefined = query.after && {
        kind,
        id: sortKeyOf(query.after),
        pk: kind === 'audit' ? entryKey(query.after.id) : `${kind}#${query.after.id}`,
      };
      let more = false;
      while (entries.length <= query.limit) {
        const page = await tables.client.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: 'kind-index',
            KeyConditionExpression: '#kind = :kind',
            ExpressionAttributeNames: { '#kind': 'kind' },
            ExpressionAttributeValues: { ':kind': kind },
            ScanIndexForward: false,
            Limit: query.limit + 1 - entries.length,
            ExclusiveStartKey: startKey,
          }),
        );
        const ids = (page.Items ?? []).map((item) => String(item.id).slice(String(item.id).indexOf('#') + 1));
        const found = await getControlItems<AuditEntry & { entryId: string; pk: string; kind: string }>(
          tables,
          ids.map(entryKey),
        );
        const byId = new Map(found.map((item) => [item.entryId, item]));
        for (const id of ids) {
          const item = byId.get(id);
          if (!item || !matches(item, query)) continue;
          const { pk: _pk, kind: _kind, entryId, ...entry } = item;
          entries.push({ ...entry, id: entryId });
        }
        startKey = page.LastEvaluatedKey;
        if (!startKey) break;
      }
      if (entries.length > query.limit) {
        more = true;
        entries.length = query.limit;
      }
      return { entries, more };
    },
  };
}

function matches(entry: AuditEntry, query: AuditQuery): boolean {
  return (
    (query.actor === undefined || entry.actor.memberId === query.actor) &&
    (query.action === undefined || entry.action === query.action) &&
    (query.target === undefined || entry.target.id === query.target)
  );
}
