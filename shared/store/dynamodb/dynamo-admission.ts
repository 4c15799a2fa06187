import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { withRetries } from '../../async-work/with-retries.ts';
import { type AdmissionRequest, type AdmissionResult, countersOf, expiredLeasesOf, refusalFor } from '../admission.ts';
import type { Lease } from '../control-items.ts';
import type { AdmissionStore } from '../store-port.ts';
import type { ClosedRequest } from '../usage-records.ts';
import { allOf, conditionFragments } from './condition-fragments.ts';
import { type MemberItem, memberKey, toMemberAccount } from './control-item-shapes.ts';
import { getControlItem, listControlItems } from './control-reads.ts';
import { closeRecord } from './dynamo-records.ts';
import { type DynamoTables, isConditionFailure } from './dynamo-tables.ts';

/**
 * Admission with ONE conditional UpdateItem on the member item. The same write checks that the member is active
 * and the key neither revoked nor rotated (so a revocation takes effect on the very next request even when the
 * key lookup was cached), reserves tokens against the day's allowance, counts the minute's requests for the
 * member and the key, takes concurrency leases and counts holder daily requests. DynamoDB cannot add inside a
 * condition, so bounds are passed as `limit - amount`. Only a refused write costs a second, consistent read, to
 * say exactly why (`refusalFor`, the same rule the SQLite engine applies inside its transaction).
 */
async function tryAdmit(tables: DynamoTables, request: AdmissionRequest): Promise<boolean> {
  const names: Record<string, string> = {
    '#status': 'status',
    '#keys': 'keys',
    '#kid': request.keyId,
    '#generation': 'generation',
    '#state': 'state',
    '#tokenDays': 'tokenDays',
    '#minutes': 'minutes',
    '#keyMinutes': 'keyMinutes',
    '#leases': 'leases',
    '#keyLeases': 'keyLeases',
    '#day': request.day,
    '#minute': request.minute,
    '#rid': request.requestId,
  };
  const lease: Lease = {
    keyId: request.keyId,
    expiresAt: request.leaseExpiresAt,
    reserved: request.reserve,
    day: request.day,
  };
  const values: Record<string, unknown> = {
    ':active': 'active',
    ':generation': request.generation,
    ':zero': 0,
    ':one': 1,
    ':reserve': request.reserve,
    ':lease': lease,
    ':leaseExpiresAt': request.leaseExpiresAt,
  };
  const updates = [
    '#tokenDays.#day = if_not_exists(#tokenDays.#day, :zero) + :reserve',
    '#minutes.#minute = if_not_exists(#minutes.#minute, :zero) + :one',
    '#keyMinutes.#kid.#minute = if_not_exists(#keyMinutes.#kid.#minute, :zero) + :one',
    '#leases.#rid = :lease',
    '#keyLeases.#kid.#rid = :leaseExpiresAt',
  ];
  const conditions: string[] = [conditionFragments.memberActive, conditionFragments.keyCurrent];
  const { limits } = request;
  if (limits.dailyTokens !== undefined) {
    values[':dailyBound'] = limits.dailyTokens - request.reserve;
    conditions.push(conditionFragments.tokensWithinAllowance);
  }
  if (limits.memberRpm !== undefined) {
    values[':memberRpm'] = limits.memberRpm;
    conditions.push(conditionFragments.memberMinuteBelowLimit);
  }
  if (limits.keyRpm !== undefined) {
    values[':keyRpm'] = limits.keyRpm;
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
    names['#holderDays'] = 'holderDays';
    values[':holderDaily'] = limits.holderDailyRequests;
    updates.push('#holderDays.#day = if_not_exists(#holderDays.#day, :zero) + :one');
    conditions.push(conditionFragments.holderDayBelowLimit);
  }
  try {
    await tables.client.send(
      new UpdateCommand({
        TableName: tables.names.control,
        Key: memberKey(request.memberId),
        UpdateExpression: `SET ${updates.join(', ')}`,
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
        Key: memberKey(record.memberId),
        UpdateExpression:
          'REMOVE #leases.#rid, #keyLeases.#kid.#rid SET #tokenDays.#day = if_not_exists(#tokenDays.#day, :zero) + :delta',
        ConditionExpression: conditionFragments.leaseHeld,
        ExpressionAttributeNames: {
          '#leases': 'leases',
          '#keyLeases': 'keyLeases',
          '#tokenDays': 'tokenDays',
          '#kid': record.keyId,
          '#rid': record.id,
          '#day': record.day,
        },
        // What the request finally costs minus what was reserved; negative when usage came in under the estimate.
        ExpressionAttributeValues: { ':zero': 0, ':delta': outcome.charge - record.reserved },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Rate windows older than this are over; allowance days are kept a week for anyone reading the item. */
const staleMinuteMs = 2 * 60_000;
const staleDayMs = 7 * 24 * 60 * 60_000;

/**
 * Removes the rate-window and allowance buckets of past minutes and days from a member item. One admission
 * write cannot drop "every other minute", so without this the item every admission rewrites would grow by a
 * bucket per active minute until DynamoDB's item limit. Nothing counts in a past bucket any more, so removing
 * one races with nothing.
 */
async function pruneMember(tables: DynamoTables, member: MemberItem, now: Date): Promise<number> {
  const minuteCutoff = new Date(now.getTime() - staleMinuteMs).toISOString().slice(0, 16);
  const dayCutoff = new Date(now.getTime() - staleDayMs).toISOString().slice(0, 10);
  const names: Record<string, string> = {};
  const removals: string[] = [];
  const remove = (path: string[]) => {
    const placeholders = path.map((part) => {
      const placeholder = `#n${Object.keys(names).length}`;
      names[placeholder] = part;
      return placeholder;
    });
    removals.push(placeholders.join('.'));
  };
  for (const minute of Object.keys(member.minutes)) if (minute < minuteCutoff) remove(['minutes', minute]);
  for (const [keyId, minutes] of Object.entries(member.keyMinutes)) {
    for (const minute of Object.keys(minutes)) if (minute < minuteCutoff) remove(['keyMinutes', keyId, minute]);
  }
  for (const field of ['tokenDays', 'holderDays'] as const) {
    for (const day of Object.keys(member[field])) if (day < dayCutoff) remove([field, day]);
  }
  // DynamoDB takes a bounded expression; a long-idle item is pruned over several passes.
  const batch = removals.slice(0, 200);
  if (batch.length === 0) return 0;
  const used = new Set(batch.flatMap((path) => path.split('.')));
  await tables.client.send(
    new UpdateCommand({
      TableName: tables.names.control,
      Key: memberKey(member.id),
      UpdateExpression: `REMOVE ${batch.join(', ')}`,
      ConditionExpression: conditionFragments.controlItemExists,
      ExpressionAttributeNames: Object.fromEntries(Object.entries(names).filter(([name]) => used.has(name))),
    }),
  );
  return batch.length;
}

export function dynamoAdmission(tables: DynamoTables): AdmissionStore {
  const readMember = (id: string) => getControlItem<MemberItem>(tables, memberKey(id).pk, true);
  return {
    async admit(request): Promise<AdmissionResult> {
      if (await tryAdmit(tables, request)) return { admitted: true };
      const member = await readMember(request.memberId);
      const account = member && toMemberAccount(member);
      // Nothing explains the refusal once read: other admissions moved the item in between.
      const refusal = refusalFor(countersOf(account, request), request) ?? { reason: 'contention' };
      return { admitted: false, refusal, expiredLeases: expiredLeasesOf(account, request.now) };
    },

    /** Two ordered writes: the lease (the gate), then the record, retried once past the gate. */
    async settle(closed) {
      if (!(await releaseLease(tables, closed))) return { released: false, closed: false };
      // Past the gate nothing else would ever close this record, so its write is retried; the close is
      // conditional, so a retry after a write that did land changes nothing.
      const recordClosed = await withRetries(() => closeRecord(tables, closed));
      return { released: true, closed: recordClosed };
    },

    async account(memberId) {
      const member = await readMember(memberId);
      return member && toMemberAccount(member);
    },

    async expiredLeases(now) {
      const members = await listControlItems<MemberItem>(tables, 'member');
      return members.flatMap((member) => expiredLeasesOf(toMemberAccount(member), now));
    },

    async pruneStale(now) {
      const members = await listControlItems<MemberItem>(tables, 'member');
      let pruned = 0;
      for (const member of members) pruned += await pruneMember(tables, member, now);
      return pruned;
    },
  };
}
