import { AsyncLocalStorage } from 'node:async_hooks';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionPermissions } from '../../infra/function-permissions.ts';
import { type FunctionAccess, functionProfiles } from '../../infra/function-profiles.ts';
import { type LocalFunction, loadLocalFunctions } from '../../infra/local/local-functions.ts';
import { createLocalServer } from '../../infra/local/local-server.ts';
import { localEarlierUsageTable, localTableNames } from '../../infra/local/open-local-store.ts';
import { backgroundFunctionIds, backgroundFunctionProfiles } from '../../infra/stream-functions.ts';
import { reapAllExpiredLeases } from '../../shared/accounting/reap-all.ts';
import { foldedByTheStream } from '../../shared/accounting/rollup-folder.ts';
import { deliverDueAlerts } from '../../shared/alerts/deliver-alerts.ts';
import { type FunctionId, functionIds } from '../../shared/http/route-table.ts';
import { foldStreamBatch, recordChangesOf } from '../../shared/store/dynamodb/dynamo-rollup-stream.ts';
import type { DynamoStore } from '../../shared/store/dynamodb/dynamo-store.ts';
import { ensureTable } from '../../shared/store/dynamodb/ensure-tables.ts';
import { recordKey } from '../../shared/store/dynamodb/partition-keys.ts';
import {
  type EarlierTableLogicalName,
  earlierUsageTable,
  type TableLogicalName,
} from '../../shared/store/table-definitions.ts';
import type { ClosedRequest } from '../../shared/store/usage-records.ts';
import { migrateEarlierRecords, migrationBudgetMs } from '../../shared/usage/migrate-earlier-records.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { AdminClient, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { awsActionsInCode } from './code-aws-calls.ts';

/**
 * Each function's role lists exactly the DynamoDB and Secrets Manager actions its code calls, and no other
 * (infra/function-permissions.ts; gateway-permissions.test.ts proves the template grants exactly those). The
 * declaration is held to the code from both sides:
 *
 * - no more than the code can call: every declared action is one the function's own code constructs, read from
 *   its tree-shaken bundle (code-aws-calls.ts). A bundle also carries store verbs its routes never use (the store
 *   is one object), so this bound is not tight by itself;
 * - no less than, and no more than, what it does call: the real functions, driven over HTTP through a scenario of
 *   every operation they offer (the reaper with an expired lease to reap), with every DynamoDB call recorded with
 *   the function that made it and the table it went to. Each (table, action) seen must be declared, and each
 *   declared one seen, except the few that only a fault path calls, listed below with the reason.
 */
const projectRoot = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

const accessOf = (functionId: string): FunctionAccess =>
  functionId in functionProfiles
    ? functionProfiles[functionId as FunctionId].access
    : backgroundFunctionProfiles[functionId as (typeof backgroundFunctionIds)[number]].access;

function declaredActions(access: FunctionAccess): Set<string> {
  const permissions = functionPermissions[access];
  return new Set([
    ...Object.values(permissions.tables).flatMap((actions) => actions ?? []),
    ...permissions.providerCredentials,
    ...(permissions.originCheck ? ['secretsmanager:GetSecretValue'] : []),
  ]);
}

/** Declared actions that no ordinary operation calls, only a fault the scenario cannot cause over HTTP. */
type StackTableName = TableLogicalName | EarlierTableLogicalName;

const faultPathOnly: Partial<Record<FunctionAccess, Partial<Record<StackTableName, string[]>>>> = {
  // A key whose member item or secret lookup cannot be written (the member vanished, a hash collided) is deleted
  // again, so no half-created key remains (shared/store/dynamodb/dynamo-keys.ts).
  admin: { control: ['dynamodb:DeleteItem'] },
};

describe('declared permissions stay within what the code can call', () => {
  it.each([...functionIds, ...backgroundFunctionIds])('%s', async (functionId) => {
    const inCode = await awsActionsInCode(projectRoot, functionId);
    const dynamo = (actions: Iterable<string>) => [...actions].filter((action) => action.startsWith('dynamodb:'));
    const secrets = (actions: Iterable<string>) => [...actions].filter((action) => action.startsWith('secrets'));
    const declared = declaredActions(accessOf(functionId));
    for (const action of dynamo(declared)) expect(inCode.has(action), `${functionId}: ${action}`).toBe(true);
    // Secrets Manager calls are made through the secret store's three methods, so they are derived exactly.
    expect(secrets(declared).toSorted()).toEqual(secrets(inCode).toSorted());
  });

  it('gives no inference function Scan, DeleteItem or BatchWriteItem', async () => {
    const inference = declaredActions('inference');
    for (const action of ['dynamodb:Scan', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      expect(inference.has(action)).toBe(false);
    }
  });
});

describe('every call the functions make is declared for its table', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let server: Server;
  let admin: AdminClient;
  let memberKey: string;
  const currentFunction = new AsyncLocalStorage<string>();
  /** function → table → DynamoDB actions seen. */
  const seen = new Map<string, Map<string, Set<string>>>();

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    // On the engine the functions run on in the stack: DynamoDB (here the embedded dynalite).
    // Alerts are recorded as pending for a deliverer, as the stack's settings make them.
    gateway = await startTestGateway({
      environment: { GATEWAY_STORE: 'dynamodb', GATEWAY_ALERT_EVENT_BUS: 'default' },
    });
    const { services } = gateway.host;
    const store = services.store as DynamoStore;
    if (store.engine !== 'dynamodb') throw new Error('the gateway did not open the dynamodb engine');
    // As on AWS: settlement hands closed requests to no folder, the stream consumer (driven below) folds them.
    services.rollupFolder = foldedByTheStream;
    const tableOf = new Map<string, TableLogicalName | EarlierTableLogicalName>([
      ...Object.entries(services.config.tables ?? localTableNames).map(
        ([name, physical]): [string, TableLogicalName] => [physical, name as TableLogicalName],
      ),
      [localEarlierUsageTable, 'earlierUsage'],
    ]);
    // Every call the document client sends, with the function it was made for (settlement included: it runs in
    // the request's async context) and the table it names; DynamoDB's own action names, as IAM knows them.
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        const functionId = currentFunction.getStore();
        const input = args.input as { TableName?: string; RequestItems?: Record<string, unknown> };
        const tables = input.TableName ? [input.TableName] : Object.keys(input.RequestItems ?? {});
        const action = `dynamodb:${String(context.commandName).replace(/Command$/, '')}`;
        if (functionId) {
          const byTable = seen.get(functionId) ?? new Map<string, Set<string>>();
          for (const physical of tables) {
            const name = tableOf.get(physical) ?? physical;
            byTable.set(name, (byTable.get(name) ?? new Set()).add(action));
          }
          seen.set(functionId, byTable);
        }
        return next(args);
      },
      { step: 'initialize', name: 'recordTableActions' },
    );
    const functions = await loadLocalFunctions();
    const attributed = Object.fromEntries(
      Object.entries(functions).map(([functionId, handler]): [string, LocalFunction] => [
        functionId,
        (event, stream, context) => currentFunction.run(functionId, () => handler(event, stream, context)),
      ]),
    ) as Record<FunctionId, LocalFunction>;
    server = createLocalServer(services, attributed);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    admin = new AdminClient(url, gateway.adminKey);

    // Every admin operation.
    const memberId = await admin.createMember({ dailyTokens: 1_000_000, rpm: 2 });
    await admin.call('GET', '/members');
    for (const verb of ['suspend', 'disable', 'enable']) await admin.call('POST', `/members/${memberId}/${verb}`);
    const { key, id: keyId } = await admin.createKey(memberId);
    memberKey = key;
    const spare = await admin.createKey(memberId);
    await admin.call('GET', '/keys');
    await admin.call('POST', `/keys/${spare.id}/rotate`);
    await admin.call('POST', `/keys/${spare.id}/revoke`);
    await admin.call('POST', '/holders', { wallet: '0xperm', usd: 50 });
    await admin.call('POST', '/holders/0xperm/keys');
    for (const [provider, wire, model, path] of [
      ['openai', 'openai-chat', 'p-chat', '/v1'],
      ['openai', 'openai-responses', 'p-responses', '/v1'],
      ['anthropic', 'anthropic-messages', 'p-messages', '/v1'],
      ['google', 'gemini', 'p-gemini', '/v1beta'],
    ] as const) {
      const id = await admin.createConnection({ provider, wire, baseUrl: `${upstream.url}${path}`, models: [model] });
      await admin.call('POST', `/connections/${id}/disable`);
      await admin.call('POST', `/connections/${id}/enable`);
    }
    await admin.call('GET', '/connections');
    await admin.call('POST', '/legacy-usage', {
      records: [{ timestamp: '2025-06-01T09:15:00Z', keyId, provider: 'alpha', model: 'm', inputTokens: 1 }],
    });

    // Every inference route, plain and streamed; a refused admission (rpm 2) classifies its refusal with a read.
    const call = (path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${memberKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((response) => response.text());
    const messages = [{ role: 'user', content: 'hi' }];
    await call('/v1/chat/completions', { model: 'openai/p-chat', messages, stream: true });
    await call('/v1/chat/completions', { model: 'openai/p-chat', messages });
    await call('/v1/chat/completions', { model: 'openai/p-chat', messages });
    const second = await admin.createMember({ dailyTokens: 1_000_000 });
    memberKey = (await admin.createKey(second)).key;
    await call('/v1/responses', { model: 'openai/p-responses', input: 'hi' });
    await call('/v1/messages', { model: 'anthropic/p-messages', max_tokens: 16, messages });
    await call('/v1/messages/count_tokens', { model: 'anthropic/p-messages', messages });
    await call('/v1beta/models/google/p-gemini:streamGenerateContent?alt=sse', {
      contents: [{ parts: [{ text: 'hi' }] }],
    });
    await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${memberKey}` } }).then((r) => r.text());
    for (const path of ['summary', 'requests', 'export.csv', 'keys']) {
      await fetch(`${url}/usage-api/v1/${path}?period=7d&scope=team`, {
        headers: { authorization: `Bearer ${gateway.adminKey}` },
      }).then((response) => response.text());
    }
    // A request that takes its member past 80 % of the day's allowance raises an alert: one conditional put.
    const nearlySpent = await admin.createMember({ dailyTokens: 60 });
    memberKey = (await admin.createKey(nearlySpent)).key;
    upstream.nextResponse({ type: 'answer', usage: { inputTokens: 59, cachedInputTokens: 0, outputTokens: 1 } });
    await call('/v1/chat/completions', { model: 'openai/p-chat', messages, max_tokens: 1 });
    await Promise.allSettled([...services.background]);

    // The alerts outbox as its scheduled function runs it: keys about to expire announced, what is due delivered
    // (to a sink standing in for EventBridge, which this machine cannot reach) and each delivery recorded.
    await admin.createKey(nearlySpent, { expiresAt: new Date(services.now().getTime() + 86_400_000).toISOString() });
    await currentFunction.run('deliver-alerts', async () => {
      expect(await services.alerts.scanExpiringKeys()).toBe(1);
      const pass = await deliverDueAlerts(
        services.store.alerts,
        { name: 'stand-in', send: async () => {} },
        {
          now: services.now,
          policy: services.config.alerts.retry,
          signal: new AbortController().signal,
        },
      );
      expect(pass.delivered).toBeGreaterThan(0);
    });

    // Requests whose upstream never answers hold their leases (one at a time for this member). A day later, by the
    // gateway's calendar, an admission finds such a lease in its way and reaps it first; two days later the
    // reaper finds the next one expired: both reaping paths, with every call they make.
    const holder = await admin.createMember({ dailyTokens: 1_000_000, concurrency: 1 });
    const holderKey = (await admin.createKey(holder)).key;
    const calendar = services.now;
    const hangingCalls: Promise<unknown>[] = [];
    const hangUp = new AbortController();
    const hangingChat = async () => {
      upstream.nextResponse({ type: 'hang' });
      const index = upstream.requests.length;
      hangingCalls.push(
        currentFunction.run('chat-completions', () =>
          fetch(`${url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${holderKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'openai/p-chat', messages }),
            signal: hangUp.signal,
          }).catch(() => undefined),
        ),
      );
      await upstream.waitForRequest(index);
    };
    try {
      await hangingChat();
      services.now = () => new Date(calendar().getTime() + 86_400_000);
      await hangingChat();
      services.now = () => new Date(calendar().getTime() + 2 * 86_400_000);
      expect(await currentFunction.run('reaper', () => reapAllExpiredLeases(services))).toBe(1);
    } finally {
      services.now = calendar;
      hangUp.abort();
      await Promise.all(hangingCalls);
    }
    await Promise.allSettled([...services.background]);

    // The records stream's consumer, fed the scenario's closed records as Lambda delivers them, twice (the second
    // delivery is a retry: the fold reads back where each rollup item stands).
    const now = services.now().getTime();
    const recent = await store.records.newest({
      from: new Date(now - 7 * 86_400_000).toISOString(),
      to: new Date(now + 7 * 86_400_000).toISOString(),
    });
    const streamEvent = recent.records
      .filter((record) => record.state !== 'running')
      .map((record, index) => ({
        dynamodb: {
          SequenceNumber: String(1_000 + index),
          NewImage: marshall({ ...recordKey(record), ...record }, { removeUndefinedValues: true }),
        },
      }));
    expect(streamEvent.length).toBeGreaterThan(0);
    const tables = { client: store.client, names: services.config.tables ?? localTableNames };
    for (let delivery = 0; delivery < 2; delivery++) {
      await currentFunction.run('rollup-stream', () => foldStreamBatch(tables, recordChangesOf(streamEvent)));
    }

    // Rebuilding the rollups of a settled day, which held a row its records no longer support.
    const settledDay = new Date(now - 3 * 86_400_000).toISOString().slice(0, 10);
    const [sample] = recent.records;
    if (!sample) throw new Error('the scenario left no record');
    const settled: ClosedRequest = {
      record: {
        ...sample,
        id: 'req_settled_day',
        startedAt: `${settledDay}T01:00:00.000Z`,
        day: settledDay,
        state: 'running',
      },
      outcome: {
        state: 'completed',
        status: 200,
        endedAt: `${settledDay}T01:00:01.000Z`,
        durationMs: 1,
        inputTokens: 1,
        cachedInputTokens: null,
        outputTokens: 1,
        charge: 2,
        source: 'measured',
      },
    };
    await store.records.close(settled);
    await store.rollups.add([{ ...settled, record: { ...settled.record, keyId: 'key_stale' } }]);
    await admin.call('POST', '/rollups/rebuild', { from: settledDay, to: settledDay });

    // The migration of the earlier layout's records, in full, by the scheduled pass and then by the admin API (the
    // progress cleared between them, as for a second stage): the scan a day after the first call, the sweep and the
    // fold a lease length later by the gateway's calendar.
    const endpoint = await store.client.config.endpoint?.();
    if (!endpoint) throw new Error('the store has no endpoint');
    const tableClient = new DynamoDBClient({
      region: 'local',
      endpoint: `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}${endpoint.path}`,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await ensureTable(tableClient, localEarlierUsageTable, earlierUsageTable);
    tableClient.destroy();
    const migrationCalendar = services.now;
    const migrateFully = async (migrate: () => Promise<{ state: string }>, requestId: string) => {
      await store.client.send(
        new PutCommand({
          TableName: localEarlierUsageTable,
          Item: { ...settled.record, ...settled.outcome, id: requestId },
        }),
      );
      await store.client.send(
        new DeleteCommand({ TableName: tables.names.control, Key: { pk: 'meta#earlier-records' } }),
      );
      try {
        expect((await migrate()).state).toBe('waiting');
        services.now = () => new Date(migrationCalendar().getTime() + services.config.leaseTtlMs + 60_000);
        expect((await migrate()).state).toBe('complete');
      } finally {
        services.now = migrationCalendar;
      }
    };
    await migrateFully(
      () =>
        currentFunction.run('migrate-earlier-records', () =>
          migrateEarlierRecords(services, migrationBudgetMs.scheduledPass),
        ),
      'req_earlier_scheduled',
    );
    await migrateFully(async () => {
      await admin.call('GET', '/earlier-records');
      return admin.call('POST', '/earlier-records/migrate');
    }, 'req_earlier_admin');
  }, 60_000);

  afterAll(async () => {
    server?.close();
    await gateway?.close();
    await upstream?.close();
  });

  it.each([...functionIds, ...backgroundFunctionIds])('%s', (functionId) => {
    const byTable = seen.get(functionId);
    // The scenario reached the function's store at all (an engine other than DynamoDB would record nothing).
    expect(byTable?.size, `${functionId} made no DynamoDB call`).toBeGreaterThan(0);
    const declared = functionPermissions[accessOf(functionId)].tables;
    for (const [table, actions] of byTable ?? []) {
      const allowed = new Set<string>(declared[table as StackTableName] ?? []);
      for (const action of actions) expect(allowed.has(action), `${functionId}: ${action} on ${table}`).toBe(true);
    }
  });

  // And nothing declared goes unused by the functions of its kind (which share their code), but for the fault
  // paths named above.
  it.each(Object.keys(functionPermissions) as FunctionAccess[])('%s uses every action declared for it', (access) => {
    const ofKind = [...functionIds, ...backgroundFunctionIds].filter((functionId) => accessOf(functionId) === access);
    for (const [table, actions] of Object.entries(functionPermissions[access].tables) as [
      StackTableName,
      readonly string[],
    ][]) {
      const used = new Set([
        ...ofKind.flatMap((functionId) => [...(seen.get(functionId)?.get(table) ?? [])]),
        ...(faultPathOnly[access]?.[table] ?? []),
      ]);
      for (const action of actions) expect(used.has(action), `${access}: ${action} on ${table} unused`).toBe(true);
    }
  });
});
