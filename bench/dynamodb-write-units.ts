/**
 * DynamoDB calls and write units per request, computed from the real items the `dynamodb` engine writes (on the
 * embedded dynalite; item sizes do not depend on the engine): a member with 10 keys, each with its own rate and
 * concurrency limit, and 10 requests in flight. Every write is priced as DynamoDB bills it — the larger of the item
 * before and after, rounded up to whole kilobytes, and each index entry it moves (the tables the request path
 * writes have none it touches). Run: `npx tsx bench/dynamodb-write-units.ts [--json]`; `npm run bench` runs it too.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttributeValue, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { startEmbeddedDynalite } from '../infra/local/embedded-dynalite.ts';
import { localTableNames } from '../infra/local/open-local-store.ts';
import { admit } from '../shared/accounting/admit.ts';
import { foldedByTheStream } from '../shared/accounting/rollup-folder.ts';
import { settle } from '../shared/accounting/settle.ts';
import { authenticate } from '../shared/auth/authenticate.ts';
import { issueKey } from '../shared/auth/key-issuance.ts';
import { parseGatewayConfig } from '../shared/config/gateway-config.ts';
import { createGatewayServices } from '../shared/config/gateway-services.ts';
import { foldStreamBatch, recordChangesOf } from '../shared/store/dynamodb/dynamo-rollup-stream.ts';
import { createDynamoStore } from '../shared/store/dynamodb/dynamo-store.ts';
import { ensureTables } from '../shared/store/dynamodb/ensure-tables.ts';
import { recordKey } from '../shared/store/dynamodb/partition-keys.ts';
import { type TableLogicalName, tableDefinitions } from '../shared/store/table-definitions.ts';
import type { ClosedRequest, RunningRecord } from '../shared/store/usage-records.ts';
import { itemSize, writeUnits } from './dynamodb-item-size.ts';

export interface PricedWrite {
  step: string;
  command: string;
  table: TableLogicalName;
  bytesBefore: number;
  bytesAfter: number;
  writeUnits: number;
}

export interface WriteUnitFigures {
  scenario: string;
  /** DynamoDB calls of the measured request, by where they fall. */
  calls: { beforeDispatch: number; alongsideDispatch: number; settlement: number; total: number };
  writes: PricedWrite[];
  writeUnitsPerRequest: number;
  /** The rollup fold off the request path: writes and write units per folded request, by batch size. */
  folding: { batch: number; writes: number; writeUnits: number; writeUnitsPerRequest: number }[];
  target: number;
}

const keysPerMember = 10;

export async function measureWriteUnits(): Promise<WriteUnitFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-write-units-'));
  const dynalite = await startEmbeddedDynalite(dataDir);
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const raw = new DynamoDBClient({ region: 'local', endpoint: dynalite.endpoint, credentials });
  try {
    await ensureTables(raw, localTableNames);
    const store = createDynamoStore({ region: 'local', endpoint: dynalite.endpoint, tableNames: localTableNames });
    const config = parseGatewayConfig({
      AWS_REGION: 'local',
      GATEWAY_SECRET_STORE: 'file',
      GATEWAY_SECRET_FILE: join(dataDir, 'secrets.json'),
    });
    // As on AWS: settlement hands nothing to an in-process folder; the stream's fold is priced on its own below.
    const services = createGatewayServices(config, store, { rollupFolder: foldedByTheStream });
    const now = new Date();
    const member = await store.members.create(
      { name: 'Write units', role: 'member', policy: { dailyTokens: 50_000_000, rpm: 1_000, concurrency: 20 } },
      now,
    );
    const principals: Awaited<ReturnType<typeof authenticate>>[] = [];
    for (let index = 0; index < keysPerMember; index++) {
      const key = await issueKey(
        store,
        { memberId: member.id, name: `key ${index}`, expiresAt: null, policy: { rpm: 500, concurrency: 5 }, tag: 'gw' },
        now,
      );
      principals.push(await authenticate(services, { authorization: `Bearer ${key.key}` }));
    }

    const tableOf = new Map(Object.entries(localTableNames).map(([name, physical]) => [physical, name]));
    const keyOf = (table: TableLogicalName, item: Record<string, unknown>) => {
      const definition = tableDefinitions.find((candidate) => candidate.logicalName === table);
      if (!definition) throw new Error(`no table ${table}`);
      const names = [definition.partitionKey, ...(definition.sortKey ? [definition.sortKey] : [])];
      return Object.fromEntries(names.map((name) => [name, item[name]]));
    };
    const sizeOf = async (table: TableLogicalName, key: Record<string, unknown>) => {
      const found = await raw.send(
        new GetItemCommand({
          TableName: localTableNames[table],
          Key: marshall(key) as Record<string, AttributeValue>,
          ConsistentRead: true,
        }),
      );
      return found.Item ? itemSize(found.Item) : 0;
    };
    let step = 'setup';
    let recording = false;
    const writes: PricedWrite[] = [];
    const calls: Record<string, number> = {};
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (!recording) return next(args);
        const command = String(context.commandName).replace(/Command$/, '');
        calls[step] = (calls[step] ?? 0) + 1;
        const input = args.input as {
          TableName?: string;
          Key?: Record<string, unknown>;
          Item?: Record<string, unknown>;
        };
        const table = tableOf.get(input.TableName ?? '') as TableLogicalName | undefined;
        if (!table || !['PutItem', 'UpdateItem', 'DeleteItem'].includes(command)) return next(args);
        const key = input.Key ?? keyOf(table, input.Item ?? {});
        const bytesBefore = await sizeOf(table, key);
        try {
          return await next(args);
        } finally {
          const bytesAfter = await sizeOf(table, key);
          // No table the request path writes has an index its writes move (the records have none; the control
          // table's kind index holds profiles, which admission never writes), so the item's own units are all.
          writes.push({
            step,
            command,
            table,
            bytesBefore,
            bytesAfter,
            writeUnits: writeUnits(bytesBefore, bytesAfter),
          });
        }
      },
      { step: 'initialize', name: 'priceWrites', priority: 'high' },
    );

    const running: RunningRecord[] = [];
    const start = async (index: number) => {
      const principal = principals[index % keysPerMember];
      if (!principal) throw new Error('no principal');
      step = 'admission';
      const admission = await admit(services, { principal, requestId: `req_units_${index}`, reserve: 4_096 });
      const record: RunningRecord = {
        id: admission.requestId,
        memberId: member.id,
        keyId: principal.keyId,
        provider: 'openai',
        model: 'openai/gpt-4o-mini',
        connectionId: 'con_write_units_0001',
        upstream: 'lb',
        wire: 'openai-chat',
        stream: true,
        startedAt: admission.admittedAt.toISOString(),
        day: admission.day,
        reserved: admission.reserved,
        state: 'running',
      };
      step = 'running record';
      await store.records.putRunning(record);
      running.push(record);
      return record;
    };
    const finish = async (record: RunningRecord) => {
      step = 'settlement';
      await settle(services, {
        record,
        status: 200,
        completed: true,
        usage: { inputTokens: 1_200, cachedInputTokens: 200, outputTokens: 350 },
        endedAt: new Date(),
        durationMs: 1_500,
      });
    };

    // Nine requests in flight, one per key; the measured one is the tenth, admitted and settled with all ten held.
    for (let index = 0; index < keysPerMember - 1; index++) await start(index);
    recording = true;
    const measured = await start(keysPerMember - 1);
    await finish(measured);
    recording = false;
    const perRequest = writes.splice(0);
    const callCounts = {
      beforeDispatch: calls['admission'] ?? 0,
      alongsideDispatch: calls['running record'] ?? 0,
      settlement: calls['settlement'] ?? 0,
      total: Object.values(calls).reduce((sum, count) => sum + count, 0),
    };
    for (const record of running.slice(0, -1)) await finish(record);

    // The fold: the stream's batches of closings, priced the same way, for a batch of these ten and for a full
    // batch of 1,000 of this member's requests (ten keys, one route, within an hour).
    const tables = { client: store.client, names: localTableNames };
    const folding: WriteUnitFigures['folding'] = [];
    for (const batch of [keysPerMember, 1_000]) {
      const closings: ClosedRequest[] = Array.from({ length: batch }, (_, index) => ({
        record: {
          ...measured,
          id: `req_fold_${batch}_${index}`,
          keyId: principals[index % keysPerMember]?.keyId ?? '',
        },
        outcome: {
          state: 'completed',
          status: 200,
          endedAt: measured.startedAt,
          durationMs: 1_500,
          inputTokens: 1_200,
          cachedInputTokens: 200,
          outputTokens: 350,
          charge: 1_550,
          source: 'measured',
        },
      }));
      const event = closings.map((closed, index) => ({
        dynamodb: {
          SequenceNumber: String(10_000_000 + batch * 10_000 + index),
          NewImage: marshall({ ...recordKey(closed.record), ...closed.record, ...closed.outcome }),
        },
      }));
      step = `fold ${batch}`;
      recording = true;
      await foldStreamBatch(tables, recordChangesOf(event));
      recording = false;
      const priced = writes.splice(0);
      const units = priced.reduce((sum, write) => sum + write.writeUnits, 0);
      folding.push({ batch, writes: priced.length, writeUnits: units, writeUnitsPerRequest: units / batch });
    }
    await store.close();
    return {
      scenario: `a member with ${keysPerMember} keys (each with its own rate and concurrency limit) and ${keysPerMember} requests in flight`,
      calls: callCounts,
      writes: perRequest,
      writeUnitsPerRequest: perRequest.reduce((sum, write) => sum + write.writeUnits, 0),
      folding,
      target: 4,
    };
  } finally {
    raw.destroy();
    await dynalite.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function describeWriteUnits(figures: WriteUnitFigures): string {
  const lines = [
    `DynamoDB per request (${figures.scenario}):`,
    `  calls: ${figures.calls.beforeDispatch} before dispatch, ${figures.calls.alongsideDispatch} alongside, ` +
      `${figures.calls.settlement} in settlement (${figures.calls.total} in all)`,
    ...figures.writes.map(
      (write) =>
        `  ${write.step.padEnd(15)} ${write.command.padEnd(7)} ${write.table.padEnd(8)} ` +
        `${String(write.bytesBefore).padStart(5)} → ${String(write.bytesAfter).padStart(5)} bytes  ${write.writeUnits} WU`,
    ),
    `  write units per request: ${figures.writeUnitsPerRequest} (target ≤ ${figures.target}: ` +
      `${figures.writeUnitsPerRequest <= figures.target ? 'met' : 'missed'})`,
    ...figures.folding.map(
      (fold) =>
        `  rollup fold off the request path, batch of ${fold.batch}: ${fold.writes} writes, ${fold.writeUnits} WU, ` +
        `${fold.writeUnitsPerRequest.toFixed(3)} WU per request`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const figures = await measureWriteUnits();
  process.stdout.write(process.argv.includes('--json') ? `${JSON.stringify(figures)}\n` : describeWriteUnits(figures));
}
