import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyView, MemberProfile } from '../control-items.ts';
import { toKeyView, toMemberProfile } from '../control-items.ts';
import { StoreCursorError } from '../store-errors.ts';
import type { KeyPageQuery, MemberPageQuery, MemberToday } from '../store-port.ts';
import { type AdmissionItem, admissionKey, dayTokens } from './admission-item.ts';
import { type KeyItem, keyKey, type MemberItem, memberKey, toKeyRecord } from './control-item-shapes.ts';
import { getControlItems } from './control-reads.ts';
import type { DynamoTables } from './dynamo-tables.ts';

/**
 * How many index entries one filtered page reads at most: one Query (about 45 bytes an entry, so 45 KB, a dozen read
 * units) and ten BatchGets of 100 items sent at once. A filter that matches few records answers a short page, even
 * an empty one, with a cursor where the reading stopped, instead of reading the whole index in one request.
 */
export const filteredStretch = 1_000;

/**
 * Paged reads on DynamoDB. The control table's keys-only `kind-index` (partition `kind`, sort `id`) lists one kind
 * in id order, a page at a time: a page is one Query of the index and the BatchGets of the items it names (each item
 * read is billed by its size, 4 KB a unit). Unfiltered, the Query asks for one entry more than the page, which tells
 * whether there is a next one. Filtered, it reads a bounded stretch of the index (`filteredStretch`) and checks the
 * filter on the items: the page ends when it is full or the stretch is read, and `next` is the last id the page
 * holds (full) or the last id read (short). Pages are in id order, not creation order: ids are random, and the index
 * is what can be read without reading everything.
 */
async function pageOfKind<Item>(
  tables: DynamoTables,
  kind: string,
  pkOf: (id: string) => string,
  limit: number,
  after: string | undefined,
  keep: ((item: Item) => boolean) | undefined,
  stretch: number,
): Promise<{ items: Item[]; next: string | undefined }> {
  if (after !== undefined && !/^[A-Za-z0-9._:-]{1,200}$/.test(after)) throw new StoreCursorError();
  const index = await tables.client.send(
    new QueryCommand({
      TableName: tables.names.control,
      IndexName: 'kind-index',
      KeyConditionExpression: '#kind = :kind',
      ExpressionAttributeNames: { '#kind': 'kind' },
      ExpressionAttributeValues: { ':kind': kind },
      Limit: keep ? stretch : limit + 1,
      ExclusiveStartKey: after === undefined ? undefined : { kind, id: after, pk: pkOf(after) },
    }),
  );
  const ids = (index.Items ?? []).map((entry) => String(entry.id));
  // Unfiltered, the entry past the page only says that there is more: its item is not read.
  const considered = keep ? ids : ids.slice(0, limit);
  const found = await getControlItems<Item & { id: string }>(tables, considered.map(pkOf));
  const byId = new Map(found.map((item) => [item.id, item]));
  const items: Item[] = [];
  for (const [position, id] of considered.entries()) {
    // Full: the next page starts after the item that filled it, whether the entries past it match or not.
    if (items.length === limit) return { items, next: considered[position - 1] };
    const item = byId.get(id);
    if (item && (keep === undefined || keep(item))) items.push(item);
  }
  // Everything considered is read: a next page if the index goes on past it.
  const more = index.LastEvaluatedKey !== undefined || considered.length < ids.length;
  return { items, next: more ? considered.at(-1) : undefined };
}

const includesName = (name: string, part: string | undefined) =>
  part === undefined || name.toLowerCase().includes(part.toLowerCase());

/** `stretch`: the most index entries a filtered page reads (a test reads small stretches of a small team). */
export async function memberPageOnDynamo(
  tables: DynamoTables,
  query: MemberPageQuery,
  stretch = filteredStretch,
): Promise<{ members: MemberProfile[]; next: string | undefined }> {
  const { items, next } = await pageOfKind<MemberItem>(
    tables,
    'member',
    (id) => memberKey(id).pk,
    query.limit,
    query.after,
    query.status === undefined && query.name === undefined
      ? undefined
      : (item) => (query.status === undefined || item.status === query.status) && includesName(item.name, query.name),
    stretch,
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
  stretch = filteredStretch,
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
      query.name === undefined && query.state === undefined ? undefined : keep,
      stretch,
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
    const { used, reserved } = dayTokens(admission, day);
    const liveKeys = keys.filter(
      (key) =>
        key.memberId === memberId &&
        key.state === 'active' &&
        (key.expiresAt === null || Date.parse(key.expiresAt) > now.getTime()),
    ).length;
    today.set(memberId, { used, reserved, liveKeys });
  }
  return today;
}
