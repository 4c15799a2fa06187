import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyView, MemberProfile } from '../control-items.ts';
import { toKeyView, toMemberProfile } from '../control-items.ts';
import { StoreCursorError } from '../store-errors.ts';
import type { KeyPageQuery, MemberPageQuery, MemberToday } from '../store-port.ts';
import { type AdmissionItem, admissionKey, decodeLease } from './admission-item.ts';
import { type KeyItem, keyKey, type MemberItem, memberKey, toKeyRecord } from './control-item-shapes.ts';
import { getControlItems } from './control-reads.ts';
import type { DynamoTables } from './dynamo-tables.ts';

/**
 * Paged reads on DynamoDB. The control table's keys-only `kind-index` (partition `kind`, sort `id`) lists one kind
 * in id order, a page at a time: a page is one Query of the index (about 45 bytes an entry, so 200 entries are one
 * read unit or two) and one BatchGet of the items it names (each item read is billed by its size, 4 KB a unit). A
 * filter is checked on the items read, and the reading goes on, page after page, until the page is full or the
 * index ends; `after` is the last id. Pages are in id order, not creation order: ids are random, and the index is
 * what can be read without reading everything.
 */
async function pageOfKind<Item>(
  tables: DynamoTables,
  kind: string,
  pkOf: (id: string) => string,
  limit: number,
  after: string | undefined,
  keep: (item: Item) => boolean,
): Promise<{ items: Item[]; next: string | undefined }> {
  if (after !== undefined && !/^[A-Za-z0-9._:-]{1,200}$/.test(after)) throw new StoreCursorError();
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined =
    after === undefined ? undefined : { kind, id: after, pk: pkOf(after) };
  let lastId: string | undefined;
  let exhausted = false;
  while (items.length < limit + 1) {
    const page = await tables.client.send(
      new QueryCommand({
        TableName: tables.names.control,
        IndexName: 'kind-index',
        KeyConditionExpression: '#kind = :kind',
        ExpressionAttributeNames: { '#kind': 'kind' },
        ExpressionAttributeValues: { ':kind': kind },
        // Unfiltered, one more than the page tells whether there is a next one; filtered, read ahead in larger steps.
        Limit: Math.max(limit + 1 - items.length, 25),
        ExclusiveStartKey: startKey,
      }),
    );
    const ids = (page.Items ?? []).map((entry) => String(entry.id));
    const found = await getControlItems<Item & { id: string }>(tables, ids.map(pkOf));
    const byId = new Map(found.map((item) => [item.id, item]));
    for (const id of ids) {
      const item = byId.get(id);
      if (item && keep(item)) items.push(item);
      if (items.length === limit) lastId = id;
      if (items.length > limit) break;
    }
    startKey = page.LastEvaluatedKey;
    if (!startKey) {
      exhausted = true;
      break;
    }
  }
  const more = items.length > limit || (!exhausted && items.length === limit);
  return { items: items.slice(0, limit), next: more ? lastId : undefined };
}

const includesName = (name: string, part: string | undefined) =>
  part === undefined || name.toLowerCase().includes(part.toLowerCase());

export async function memberPageOnDynamo(
  tables: DynamoTables,
  query: MemberPageQuery,
): Promise<{ members: MemberProfile[]; next: string | undefined }> {
  const { items, next } = await pageOfKind<MemberItem>(
    tables,
    'member',
    (id) => memberKey(id).pk,
    query.limit,
    query.after,
    (item) => (query.status === undefined || item.status === query.status) && includesName(item.name, query.name),
  );
  return { members: items.map(toMemberProfile), next };
}

function keyStateAt(key: KeyView, now: Date): 'active' | 'revoked' | 'expired' {
  if (key.state === 'revoked') return 'revoked';
  return key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime() ? 'expired' : 'active';
}

export async function keyPageOnDynamo(
  tables: DynamoTables,
  query: KeyPageQuery,
): Promise<{ keys: KeyView[]; next: string | undefined }> {
  const keep = (item: KeyItem) =>
    (query.memberId === undefined || item.memberId === query.memberId) &&
    includesName(item.name, query.name) &&
    (query.state === undefined || keyStateAt(toKeyView(toKeyRecord(item)), query.now) === query.state);
  if (query.memberId === undefined) {
    const { items, next } = await pageOfKind<KeyItem>(
      tables,
      'key',
      (id) => keyKey(id).pk,
      query.limit,
      query.after,
      keep,
    );
    return { keys: items.map((item) => toKeyView(toKeyRecord(item))), next };
  }
  // One member's keys: its profile names every key it ever had (its key slots), read in one batch, oldest first.
  const [profile] = await getControlItems<MemberItem>(tables, [memberKey(query.memberId).pk]);
  const ids = Object.values(profile?.keySlots ?? {});
  const keys = (
    await getControlItems<KeyItem>(
      tables,
      ids.map((id) => keyKey(id).pk),
    )
  )
    .filter(keep)
    .map((item) => toKeyView(toKeyRecord(item)))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const start = query.after === undefined ? 0 : keys.findIndex((key) => key.id === query.after) + 1;
  if (query.after !== undefined && start === 0) throw new StoreCursorError();
  const page = keys.slice(start, start + query.limit);
  return { keys: page, next: start + query.limit < keys.length ? page.at(-1)?.id : undefined };
}

/**
 * Today for a page of members: one BatchGet of their admission items (the day's tokens, the leases in flight and
 * the active keys' slots), then one of the active keys' items for their expiry, and of the profiles for which key
 * each slot is.
 */
export async function membersTodayOnDynamo(
  tables: DynamoTables,
  memberIds: readonly string[],
  day: string,
  now: Date,
): Promise<Map<string, MemberToday>> {
  const items = await getControlItems<AdmissionItem | MemberItem>(tables, [
    ...memberIds.map((id) => admissionKey(id).pk),
    ...memberIds.map((id) => memberKey(id).pk),
  ]);
  const byPk = new Map(items.map((item) => [item.pk, item]));
  const activeKeyIds: string[] = [];
  for (const memberId of memberIds) {
    const admission = byPk.get(admissionKey(memberId).pk) as AdmissionItem | undefined;
    const profile = byPk.get(memberKey(memberId).pk) as MemberItem | undefined;
    for (const slot of Object.keys(admission?.k ?? {})) {
      const keyId = profile?.keySlots?.[slot];
      if (keyId) activeKeyIds.push(keyId);
    }
  }
  const keys = await getControlItems<KeyItem>(
    tables,
    activeKeyIds.map((id) => keyKey(id).pk),
  );
  const today = new Map<string, MemberToday>();
  for (const memberId of memberIds) {
    const admission = byPk.get(admissionKey(memberId).pk) as AdmissionItem | undefined;
    if (!admission && !byPk.has(memberKey(memberId).pk)) continue;
    let reserved = 0;
    for (const value of Object.values(admission?.l ?? {})) {
      const lease = decodeLease(value);
      if (new Date(lease.admittedAt).toISOString().slice(0, 10) === day) reserved += lease.reserved;
    }
    const total = admission?.t?.[day] ?? 0;
    const liveKeys = keys.filter(
      (key) =>
        key.memberId === memberId &&
        key.state === 'active' &&
        (key.expiresAt === null || Date.parse(key.expiresAt) > now.getTime()),
    ).length;
    today.set(memberId, { used: Math.max(0, total - reserved), reserved, liveKeys });
  }
  return today;
}
