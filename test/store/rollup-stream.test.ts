import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTableNames } from '../../infra/local/open-local-store.ts';
import {
  foldStreamBatch,
  recordChangesOf,
  type StreamEventRecord,
} from '../../shared/store/dynamodb/dynamo-rollup-stream.ts';
import type { DynamoStore } from '../../shared/store/dynamodb/dynamo-store.ts';
import type { DynamoTables } from '../../shared/store/dynamodb/dynamo-tables.ts';
import { recordKey, recordShardOf } from '../../shared/store/dynamodb/partition-keys.ts';
import { type ClosedRequest, foldIntoRollups, type RollupRow } from '../../shared/store/usage-records.ts';
import { startTestStore, type TestStore } from '../support/test-store.ts';

/**
 * The records stream's consumer on the DynamoDB engines (dynalite and DynamoDB Local), fed Lambda events in the
 * shape Lambda delivers them: the fold counts each closing once, whatever part of the stream arrives again — the
 * same batch redelivered, its halves after a split, a retry that starts inside it and runs past its end.
 */
describe.each(['dynalite', 'DynamoDB Local'] as const)('the rollup stream consumer on %s', (engineName) => {
  let engine: TestStore;
  let tables: DynamoTables;
  beforeAll(async () => {
    engine = await startTestStore(engineName);
    tables = { client: (engine.store as DynamoStore).client, names: localTableNames };
  }, 60_000);
  afterAll(async () => engine?.close());

  let sequence = 1_000_000;
  let member = 0;
  const day = '2025-09-14';

  function closings(memberId: string, count: number): ClosedRequest[] {
    return Array.from({ length: count }, (_, index) => ({
      record: {
        id: `req_${memberId}_${index}`,
        memberId,
        keyId: `key_${index % 2}`,
        provider: 'openai',
        model: 'openai/m',
        connectionId: 'con_stream',
        upstream: 'lb',
        wire: 'openai-chat',
        stream: true,
        startedAt: `${day}T0${index % 3}:00:${String(index).padStart(2, '0')}.000Z`,
        day,
        reserved: 100,
        state: 'running',
      },
      outcome: {
        state: index % 4 === 3 ? 'failed' : 'completed',
        status: index % 4 === 3 ? 500 : 200,
        endedAt: `${day}T03:00:00.000Z`,
        durationMs: 5,
        inputTokens: index % 5 === 0 ? null : index,
        cachedInputTokens: null,
        outputTokens: 3,
        charge: index + 3,
        source: 'measured',
      },
    }));
  }

  const item = (request: ClosedRequest, closed: boolean) =>
    marshall(
      { ...recordKey(request.record), ...request.record, ...(closed ? request.outcome : {}) },
      { removeUndefinedValues: true },
    );

  /** The stream records of requests as they ran: a running write, then its closing (or the whole closed record). */
  function streamOf(requests: readonly ClosedRequest[]): StreamEventRecord[] {
    return requests.flatMap((request, index) => {
      const running = item(request, false);
      const closed = item(request, true);
      const seq = () => String(sequence++).padStart(21, '0');
      // Every third request's running write never arrived: settlement wrote the whole record.
      if (index % 3 === 2) return [{ dynamodb: { SequenceNumber: seq(), NewImage: closed } }];
      return [
        { dynamodb: { SequenceNumber: seq(), NewImage: running } },
        { dynamodb: { SequenceNumber: seq(), OldImage: running, NewImage: closed } },
      ];
    });
  }

  const fold = (records: readonly StreamEventRecord[]) => foldStreamBatch(tables, recordChangesOf(records));
  const stable = (rows: readonly RollupRow[]) => rows.map((row) => JSON.stringify(row, Object.keys(row).sort())).sort();
  const rollupsOf = async (memberId: string) => ({
    hours: stable(await engine.store.rollups.read({ by: 'hour', first: `${day}T00`, last: `${day}T23`, memberId })),
    days: (await engine.store.rollups.read({ by: 'day', first: day, last: day, memberId })).map((row) => [
      row.keyId,
      row.requests,
      row.charge,
    ]),
  });
  const expected = (requests: readonly ClosedRequest[]) => stable(foldIntoRollups(requests));

  it('folds exactly the closings of a batch into hours and days, and nothing for running writes', async () => {
    const memberId = `mem_stream_${member++}`;
    const requests = closings(memberId, 12);
    const events = streamOf(requests);
    const result = await fold(events);
    expect(result.folded).toBe(12);
    // Folded: one write per hour and key, not one per request.
    expect(result.writes).toBeLessThan(12 * 2);
    const after = await rollupsOf(memberId);
    expect(after.hours).toEqual(expected(requests));
    expect(after.days.reduce((sum, [, requests]) => sum + Number(requests), 0)).toBe(12);
    // A later change of a closed record (none is made today, but one could be) folds nothing either.
    const [first] = requests as [ClosedRequest];
    await fold([
      { dynamodb: { SequenceNumber: String(sequence++), OldImage: item(first, true), NewImage: item(first, true) } },
    ]);
    expect(await rollupsOf(memberId)).toEqual(after);
  });

  it('counts nothing twice when a batch is redelivered, split in halves, or resumed from inside it', async () => {
    const memberId = `mem_stream_${member++}`;
    const requests = closings(memberId, 16);
    const events = streamOf(requests);
    await fold(events);
    const once = await rollupsOf(memberId);
    expect(once.hours).toEqual(expected(requests));
    // Lambda retried the whole batch (the function failed after its writes).
    await fold(events);
    // Then bisected it.
    const middle = Math.floor(events.length / 2);
    await fold(events.slice(0, middle));
    await fold(events.slice(middle));
    expect(await rollupsOf(memberId)).toEqual(once);
    // A retry that starts inside the batch and carries records that came after it: only those are new.
    const more = closings(memberId, 20).slice(16);
    await fold([...events.slice(middle - 3), ...streamOf(more)]);
    expect((await rollupsOf(memberId)).hours).toEqual(expected([...requests, ...more]));
  });

  it('keeps a mark per record shard, so shards folded side by side never hide each other’s changes', async () => {
    const memberId = `mem_stream_${member++}`;
    const requests = closings(memberId, 24);
    const byShard = new Map<number, ClosedRequest[]>();
    for (const request of requests) {
      const shard = recordShardOf(memberId, request.record.id);
      byShard.set(shard, [...(byShard.get(shard) ?? []), request]);
    }
    expect(byShard.size).toBeGreaterThan(1);
    // Each record shard's changes come in order, but the shards' batches run at once, in any order.
    const batches = [...byShard.values()].map((ofShard) => streamOf(ofShard)).reverse();
    await Promise.all(batches.map((batch) => fold(batch)));
    await Promise.all(batches.map((batch) => fold(batch.slice(1))));
    expect((await rollupsOf(memberId)).hours).toEqual(expected(requests));
  });
});
