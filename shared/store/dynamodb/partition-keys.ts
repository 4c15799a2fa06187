import type { RecordLocator } from '../usage-records.ts';

/**
 * How the DynamoDB engine spreads records and rollups over partition keys, so that no key takes all of a day's
 * writes (docs/store.md, "Partitions"). DynamoDB caps one partition at 1,000 write and 3,000 read units a second:
 *
 * - records: a UTC day is split into `recordShards` partitions (`YYYY-MM-DD#NN`); a member's records go to
 *   `memberRecordShards` consecutive ones of them (chosen by the member id), each request to one of those by its
 *   id. A member's reads touch only its own shards; a team's read of a day touches all of them.
 * - rollups: by member group (`rollupGroups`, chosen by the member id): hours of a day in `h#YYYY-MM-DD#G`, days
 *   of a month in `d#YYYY-MM#G`.
 */
export const recordShards = 16;
export const memberRecordShards = 4;
export const rollupGroups = 8;

/** FNV-1a, 32 bits: stable across processes and versions, which the keys it chooses must be. */
function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

const twoDigits = (shard: number) => String(shard).padStart(2, '0');

/** The shards of `recordShards` that hold one member's records. */
export function memberShards(memberId: string): number[] {
  const first = stableHash(memberId) % recordShards;
  return Array.from({ length: memberRecordShards }, (_, offset) => (first + offset) % recordShards);
}

/** The shard of one request's record: one of its member's shards, by the request id. */
export function recordShardOf(memberId: string, requestId: string): number {
  const shards = memberShards(memberId);
  return shards[stableHash(requestId) % shards.length] as number;
}

export const recordPartition = (day: string, shard: number) => `${day}#${twoDigits(shard)}`;

export function recordKey(record: RecordLocator): { pk: string; sk: string } {
  return {
    pk: recordPartition(record.startedAt.slice(0, 10), recordShardOf(record.memberId, record.id)),
    sk: `${record.startedAt}#${record.id}`,
  };
}

/** The shard number a record partition key names. */
export const shardOfPartition = (pk: string) => Number(pk.slice(pk.indexOf('#') + 1));

export const rollupGroupOf = (memberId: string) => stableHash(memberId) % rollupGroups;
export const allRollupGroups = Array.from({ length: rollupGroups }, (_, group) => group);
export const hourRollupPartition = (day: string, group: number) => `h#${day}#${group}`;
export const dayRollupPartition = (month: string, group: number) => `d#${month}#${group}`;

/** The slot that stands for a key inside its member's admission item: short, and unique among the member's keys. */
export const keySlotOf = (keyId: string) => keyId.slice(-6);
