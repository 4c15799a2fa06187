import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { withRetries } from '../../async-work/with-retries.ts';
import { type AdmissionRequest, type AdmissionResult, countersOf, expiredLeasesOf, refusalFor } from '../admission.ts';
import type { MemberAccount } from '../control-items.ts';
import type { AdmissionStore } from '../store-port.ts';
import type { ClosedRequest } from '../usage-records.ts';
import {
  type AdmissionItem,
  admissionKey,
  compactMinute,
  dayTokens,
  encodeLease,
  isoMinute,
  keyMinuteName,
  rotationMemoryMs,
  toMemberAccount,
} from './admission-item.ts';
import { allOf, conditionFragments } from './condition-fragments.ts';
import { type KeyItem, keyKey, type MemberItem, memberKey } from './control-item-shapes.ts';
import { getControlItem, getControlItems, listControlItems } from './control-reads.ts';
import { membersTodayOnDynamo } from './dynamo-pages.ts';
import { closeRecord } from './dynamo-records.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';
import { adoptEarlierLayout } from './earlier-layout.ts';
import { keySlotOf } from './partition-keys.ts';

const minuteMs = 60_000;
const dayMs = 86_400_000;
const minutesBefore = (minute: string, count: number) =>
  new Date(Date.parse(`${minute}:00.000Z`) - count * minuteMs).toISOString().slice(0, 16);
const dayBefore = (day: string, count: number) => new Date(Date.parse(day) - count * dayMs).toISOString().slice(0, 10);

/**
 * Admission with ONE conditional UpdateItem on the member's admission item (admission-item.ts). The same write
 * checks that the member is active and the key neither revoked nor rotated (so a revocation takes effect on the
 * very next request even when the key lookup was cached), reserves tokens against the day's allowance, counts the
 * minute's requests for the member (and the key, where the key has a rate limit), takes the concurrency lease and
 * counts holder daily requests; it also drops windows and a day that no check reads any more (keeping the minute
 * before, for whoever inspects the item). DynamoDB cannot
 * add inside a condition, so bounds are passed as `limit - amount`. Only a refused write costs a second, consistent
 * read, to say exactly why (`refusalFor`, the same rule the SQLite engine applies inside its transaction).
 */
async function tryAdmit(tables: DynamoTables, request: AdmissionRequest): Promise<boolean> {
  const slot = keySlotOf(request.keyId);
  const names: Record<string, string> = {
    '#s': 's',
    '#k': 'k',
    '#slot': slot,
    '#kl': 'kl',
    '#l': 'l',
    '#rid': request.requestId,
    '#t': 't',
    '#day': request.day,
    '#oldDay': dayBefore(request.day, 2),
    '#w': 'w',
    '#minute': compactMinute(request.minute),
    '#minute2': compactMinute(minutesBefore(request.minute, 2)),
    '#minute3': compactMinute(minutesBefore(request.minute, 3)),
  };
  const values: Record<string, unknown> = {
    ':active': 'active',
    ':generation': request.generation,
    ':zero': 0,
    ':one': 1,
    ':reserve': request.reserve,
    ':lease': encodeLease({
      slot,
      admittedAt: request.now,
      expiresAt: request.leaseExpiresAt,
      reserved: request.reserve,
    }),
  };
  const updates = [
    '#l.#rid = :lease',
    '#kl.#slot = if_not_exists(#kl.#slot, :zero) + :one',
    '#t.#day = if_not_exists(#t.#day, :zero) + :reserve',
    '#w.#minute = if_not_exists(#w.#minute, :zero) + :one',
  ];
  const removals = ['#w.#minute2', '#w.#minute3', '#t.#oldDay'];
  const conditions: string[] = [conditionFragments.memberActive, conditionFragments.keyCurrent];
  const { limits } = request;
  if (request.policyVersions) {
    Object.assign(names, { '#pv': 'pv', '#kv': 'kv' });
    values[':memberVersion'] = request.policyVersions.member;
    values[':keyVersion'] = request.policyVersions.key;
    conditions.push(conditionFragments.memberPolicyCurrent, conditionFragments.keyPolicyCurrent);
  }
  if (limits.dailyTokens !== undefined) {
    values[':dailyBound'] = limits.dailyTokens - request.reserve;
    conditions.push(conditionFragments.tokensWithinAllowance);
  }
  if (limits.memberRpm !== undefined) {
    values[':memberRpm'] = limits.memberRpm;
    conditions.push(conditionFragments.memberMinuteBelowLimit);
  }
  if (limits.keyRpm !== undefined) {
    Object.assign(names, {
      '#kw': 'kw',
      '#keyMinute': keyMinuteName(slot, request.minute),
      '#keyMinute2': keyMinuteName(slot, minutesBefore(request.minute, 2)),
      '#keyMinute3': keyMinuteName(slot, minutesBefore(request.minute, 3)),
    });
    values[':keyRpm'] = limits.keyRpm;
    updates.push('#kw.#keyMinute = if_not_exists(#kw.#keyMinute, :zero) + :one');
    removals.push('#kw.#keyMinute2', '#kw.#keyMinute3');
    conditions.push(conditionFragments.keyMinuteBelowLimit);
  }
  if (limits.memberConcurrency !== undefined) {
    values[':memberConcurrency'] = limits.memberConcurrency;
    conditions.push(conditionFragments.memberLeasesBelowLimit);
  }
  if (limits.keyConcurrency !== undefined) {
    values[':keyConcurrency'] = limits.keyConcurrency;
    conditions.push(conditionFragments.keyLeasesBelowLimit);
  }
  if (limits.holderDailyRequests !== undefined) {
    names['#h'] = 'h';
    values[':holderDaily'] = limits.holderDailyRequests;
    updates.push('#h.#day = if_not_exists(#h.#day, :zero) + :one');
    removals.push('#h.#oldDay');
    conditions.push(conditionFragments.holderDayBelowLimit);
  }
  try {
    await tables.client.send(
      new UpdateCommand({
        TableName: tables.names.control,
        Key: admissionKey(request.memberId),
        UpdateExpression: `SET ${updates.join(', ')} REMOVE ${removals.join(', ')}`,
        ConditionExpression: allOf(...conditions),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Releases a request's lease and turns its reservation into the final charge. The lease is the once-only gate:
 * the write requires it, so a second settlement (a retry, or the reaper racing the request) changes nothing.
 */
async function releaseLease(tables: DynamoTables, { record, outcome }: ClosedRequest): Promise<boolean> {
  try {
    await tables.client.send(
      new UpdateCommand({
        TableName: tables.names.control,
        Key: admissionKey(record.memberId),
        UpdateExpression:
          'REMOVE #l.#rid SET #kl.#slot = if_not_exists(#kl.#slot, :one) - :one, #t.#day = if_not_exists(#t.#day, :zero) + :delta',
        ConditionExpression: conditionFragments.leaseHeld,
        ExpressionAttributeNames: {
          '#l': 'l',
          '#kl': 'kl',
          '#t': 't',
          '#slot': keySlotOf(record.keyId),
          '#rid': record.id,
          '#day': record.day,
        },
        // What the request finally costs minus what was reserved; negative when usage came in under the estimate.
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':delta': outcome.charge - record.reserved },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * A member's account, read consistently in one batch: its profile, its admission item and (for saying why a key
 * was refused) the key's own item. A key of the member without an entry in the admission item was revoked.
 */
async function readAccount(
  tables: DynamoTables,
  memberId: string,
  keyIds: readonly string[] | 'all',
): Promise<{ account: MemberAccount; profile: MemberItem; admission: AdmissionItem | undefined } | undefined> {
  const items = await getControlItems<MemberItem | AdmissionItem>(
    tables,
    [memberKey(memberId).pk, admissionKey(memberId).pk],
    true,
  );
  const profile = items.find((item) => item.pk === memberKey(memberId).pk) as MemberItem | undefined;
  const admission = items.find((item) => item.pk === admissionKey(memberId).pk) as AdmissionItem | undefined;
  if (!profile) return undefined;
  const active = new Set(Object.keys(admission?.k ?? {}));
  const wanted = keyIds === 'all' ? Object.values(profile.keySlots ?? {}) : keyIds;
  const missing = wanted.filter((keyId) => !active.has(keySlotOf(keyId)));
  const keys =
    missing.length === 0
      ? []
      : await getControlItems<KeyItem>(
          tables,
          missing.map((keyId) => keyKey(keyId).pk),
          true,
        );
  // Revocation removes the entry before it marks the key item, so a key of the member without an entry is revoked.
  const revoked = keys.filter((key) => key.memberId === memberId);
  return { account: toMemberAccount(profile, admission, revoked), profile, admission };
}

const staleDayMs = 7 * dayMs;

/**
 * Removes what no admission reads any more: rate windows of past minutes, days older than a week, and rotation
 * times older than a rotation can take. Admission drops most of it as it goes; this catches a member that went
 * quiet. Nothing counts in a past bucket any more, so removing one races with nothing.
 */
async function pruneMember(tables: DynamoTables, item: AdmissionItem, now: Date): Promise<number> {
  const minuteCutoff = new Date(now.getTime() - 2 * minuteMs).toISOString().slice(0, 16);
  const dayCutoff = new Date(now.getTime() - staleDayMs).toISOString().slice(0, 10);
  const rotationCutoff = now.getTime() - rotationMemoryMs;
  const names: Record<string, string> = {};
  const removals: string[] = [];
  const remove = (map: string, entry: string) => {
    names[`#${map}`] = map;
    names[`#e${removals.length}`] = entry;
    removals.push(`#${map}.#e${removals.length}`);
  };
  for (const minute of Object.keys(item.w)) if (isoMinute(minute) < minuteCutoff) remove('w', minute);
  for (const name of Object.keys(item.kw ?? {})) {
    if (isoMinute(name.split('.')[1] ?? '0') < minuteCutoff) remove('kw', name);
  }
  for (const map of ['t', 'h'] as const) {
    for (const day of Object.keys(item[map] ?? {})) if (day < dayCutoff) remove(map, day);
  }
  for (const [slot, at] of Object.entries(item.kr ?? {})) if (at < rotationCutoff) remove('kr', slot);
  // DynamoDB takes an expression of at most 4 KB; a long-idle item is pruned over several passes.
  const batch = removals.slice(0, 250);
  if (batch.length === 0) return 0;
  const used = new Set(batch.flatMap((path) => path.split('.')));
  await tables.client.send(
    new UpdateCommand({
      TableName: tables.names.control,
      Key: { pk: item.pk },
      UpdateExpression: `REMOVE ${batch.join(', ')}`,
      ConditionExpression: conditionFragments.controlItemExists,
      ExpressionAttributeNames: Object.fromEntries(Object.entries(names).filter(([name]) => used.has(name))),
    }),
  );
  return batch.length;
}

/** Every member's profile and admission item. */
async function everyMember(tables: DynamoTables): Promise<{ profile: MemberItem; admission: AdmissionItem }[]> {
  const profiles = await listControlItems<MemberItem>(tables, 'member');
  const admissions = await getControlItems<AdmissionItem>(
    tables,
    profiles.map((profile) => admissionKey(profile.id).pk),
  );
  const byPk = new Map(admissions.map((item) => [item.pk, item]));
  return profiles.flatMap((profile) => {
    const admission = byPk.get(admissionKey(profile.id).pk);
    return admission ? [{ profile, admission }] : [];
  });
}

export function dynamoAdmission(tables: DynamoTables): AdmissionStore {
  return {
    async admit(request): Promise<AdmissionResult> {
      if (await tryAdmit(tables, request)) return { admitted: true };
      const read = await readAccount(tables, request.memberId, [request.keyId]);
      // A member written by the earlier layout gets its admission item now; the caller tries again.
      if (read && !read.admission && (await adoptEarlierLayout(tables, request.memberId))) {
        return { admitted: false, refusal: { reason: 'contention' }, expiredLeases: [] };
      }
      const account = read?.account;
      // Nothing explains the refusal once read: other admissions moved the item in between.
      const refusal = refusalFor(countersOf(account, request), request) ?? { reason: 'contention' };
      return { admitted: false, refusal, expiredLeases: expiredLeasesOf(account, request.now) };
    },

    /** Two ordered writes: the lease (the gate), then the record, retried past the gate. */
    async settle(closed) {
      if (!(await releaseLease(tables, closed))) return { released: false, closed: false };
      // Past the gate nothing else would ever close this record, so its write is retried; the close is
      // conditional, so a retry after a write that did land changes nothing.
      const recordClosed = await withRetries(() => closeRecord(tables, closed));
      return { released: true, closed: recordClosed };
    },

    today: (memberIds, day, now) => membersTodayOnDynamo(tables, memberIds, day, now),

    /** One consistent read of the admission item, which holds the day's count and the leases in flight. */
    async chargedToday(memberId, day) {
      const item = await getControlItem<AdmissionItem>(tables, admissionKey(memberId).pk, true);
      return item ? dayTokens(item, day).used : undefined;
    },

    async account(memberId) {
      return (await readAccount(tables, memberId, 'all'))?.account;
    },

    async expiredLeases(now) {
      const members = await everyMember(tables);
      return members.flatMap(({ profile, admission }) => expiredLeasesOf(toMemberAccount(profile, admission), now));
    },

    async pruneStale(now) {
      let pruned = 0;
      for (const { admission } of await everyMember(tables)) pruned += await pruneMember(tables, admission, now);
      return pruned;
    },
  };
}
