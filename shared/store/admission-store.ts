import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Lease, MemberItem } from './control-items.ts';
import type { ControlTable } from './control-table.ts';
import { isConditionFailure } from './dynamo-client.ts';

/** The limits one admission checks; an absent limit is not checked. Numbers come from the effective policy. */
export interface AdmissionLimits {
  dailyTokens?: number | undefined;
  memberRpm?: number | undefined;
  keyRpm?: number | undefined;
  memberConcurrency?: number | undefined;
  keyConcurrency?: number | undefined;
  holderDailyRequests?: number | undefined;
}

export interface AdmissionRequest {
  memberId: string;
  keyId: string;
  /** The key generation the caller authenticated with: a rotation since then fails the write. */
  generation: number;
  requestId: string;
  /** UTC day `YYYY-MM-DD` and minute `YYYY-MM-DDTHH:MM` of the admission. */
  day: string;
  minute: string;
  reserve: number;
  leaseExpiresAt: number;
  limits: AdmissionLimits;
}

/**
 * Admits a request with ONE conditional UpdateItem on the member item. The same write checks that the member
 * is active and the key neither revoked nor rotated (so a revocation takes effect on the very next request even
 * when the key lookup was cached), reserves tokens against the day's allowance, counts the minute's requests for
 * the member and the key, takes concurrency leases and counts holder daily requests. DynamoDB cannot add inside
 * a condition, so bounds are passed as `limit - amount`. Returns false when the condition failed; the caller
 * classifies why on its cold path.
 */
export async function tryAdmit(table: ControlTable, request: AdmissionRequest): Promise<boolean> {
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
  const conditions = ['#status = :active', '#keys.#kid.#generation = :generation', '#keys.#kid.#state = :active'];
  const { limits } = request;
  if (limits.dailyTokens !== undefined) {
    values[':dailyBound'] = limits.dailyTokens - request.reserve;
    conditions.push('(attribute_not_exists(#tokenDays.#day) OR #tokenDays.#day <= :dailyBound)');
  }
  if (limits.memberRpm !== undefined) {
    values[':memberRpm'] = limits.memberRpm;
    conditions.push('(attribute_not_exists(#minutes.#minute) OR #minutes.#minute < :memberRpm)');
  }
  if (limits.keyRpm !== undefined) {
    values[':keyRpm'] = limits.keyRpm;
    conditions.push('(attribute_not_exists(#keyMinutes.#kid.#minute) OR #keyMinutes.#kid.#minute < :keyRpm)');
  }
  if (limits.memberConcurrency !== undefined) {
    values[':memberConcurrency'] = limits.memberConcurrency;
    conditions.push('size(#leases) < :memberConcurrency');
  }
  if (limits.keyConcurrency !== undefined) {
    values[':keyConcurrency'] = limits.keyConcurrency;
    conditions.push('size(#keyLeases.#kid) < :keyConcurrency');
  }
  if (limits.holderDailyRequests !== undefined) {
    names['#holderDays'] = 'holderDays';
    values[':holderDaily'] = limits.holderDailyRequests;
    updates.push('#holderDays.#day = if_not_exists(#holderDays.#day, :zero) + :one');
    conditions.push('(attribute_not_exists(#holderDays.#day) OR #holderDays.#day < :holderDaily)');
  }
  try {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { pk: `member#${request.memberId}` },
        UpdateExpression: `SET ${updates.join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
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

export interface LeaseRelease {
  memberId: string;
  keyId: string;
  requestId: string;
  day: string;
  /** What the request finally costs minus what was reserved; negative when usage came in under the estimate. */
  chargeDelta: number;
}

/**
 * Releases a request's lease and turns its reservation into the final charge. The lease is the once-only gate:
 * the write requires it to exist, so a second settlement (a retry, or the reaper racing the request) changes
 * nothing and returns false.
 */
export async function releaseLease(table: ControlTable, release: LeaseRelease): Promise<boolean> {
  try {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { pk: `member#${release.memberId}` },
        UpdateExpression:
          'REMOVE #leases.#rid, #keyLeases.#kid.#rid SET #tokenDays.#day = if_not_exists(#tokenDays.#day, :zero) + :delta',
        ConditionExpression: 'attribute_exists(#leases.#rid)',
        ExpressionAttributeNames: {
          '#leases': 'leases',
          '#keyLeases': 'keyLeases',
          '#tokenDays': 'tokenDays',
          '#kid': release.keyId,
          '#rid': release.requestId,
          '#day': release.day,
        },
        ExpressionAttributeValues: { ':zero': 0, ':delta': release.chargeDelta },
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
 * bucket per active minute until DynamoDB's item limit. The reaper's pass calls it for every member; nothing
 * counts in a past bucket any more, so removing one races with nothing.
 */
export async function pruneStaleBuckets(table: ControlTable, member: MemberItem, now: Date): Promise<number> {
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
  await table.client.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: { pk: `member#${member.id}` },
      UpdateExpression: `REMOVE ${batch.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: Object.fromEntries(Object.entries(names).filter(([name]) => used.has(name))),
    }),
  );
  return batch.length;
}
