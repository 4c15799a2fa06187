import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type Database from 'better-sqlite3';
import type { MemberAccount } from '../control-items.ts';
import { type AdmissionItem, toMemberAccount } from '../dynamodb/admission-item.ts';
import {
  type BootstrapItem,
  type ConnectionControlItem,
  type KeyItem,
  type MemberItem,
  type SecretLookupItem,
  toConnection,
} from '../dynamodb/control-item-shapes.ts';
import { type RollupItem, toRollupRow } from '../dynamodb/dynamo-rollup-queries.ts';
import { earlierMigrationProgressKey } from '../dynamodb/earlier-records-migration.ts';
import { connectionRowValues, insertConnection } from '../sqlite/sqlite-control.ts';
import type { TableLogicalName } from '../table-definitions.ts';
import {
  closedRequestOf,
  foldIntoRollups,
  type RollupRow,
  type StoredLegacyUsageRecord,
  type UsageRecord,
} from '../usage-records.ts';

/** How many of each kind an import copied: what the start message reports. */
export interface ImportCounts {
  members: number;
  keys: number;
  secrets: number;
  connections: number;
  leases: number;
  records: number;
  rollups: number;
  legacyRecords: number;
}

async function scanAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  existing: ReadonlySet<string>,
): Promise<Record<string, unknown>[]> {
  if (!existing.has(tableName)) return [];
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

async function listTables(client: DynamoDBDocumentClient): Promise<Set<string>> {
  const names = new Set<string>();
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    for (const name of page.TableNames ?? []) names.add(name);
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
}

/** A member as the import reads it: the earlier layout's single item, or a profile with its admission item read in. */
type ImportedMember = MemberItem & Partial<MemberAccount>;

/**
 * Copies everything the DynamoDB engine stored into an empty SQLite database of the current schema, in one
 * transaction: members with their whole admission state (token days, rate windows, open leases, holder days), keys
 * with their generations and every secret hash they had, connections, the first administrator, usage records,
 * hourly rollups (a day's total is the sum of its hours, which SQLite adds at read time) and 0.1 records. It reads
 * both layouts of the engine: the earlier one (one member item with all its state, records keyed by id in
 * `earlierUsageTable`, rollups under `day#`) and the current one (profile and admission items, records by day and
 * shard, rollups under `h#` and `d#`). An item of a kind this version does not know stops the import rather than be
 * left behind.
 */
export async function importDynamoTables(
  client: DynamoDBDocumentClient,
  tableNames: Readonly<Record<TableLogicalName, string>>,
  database: Database.Database,
  earlierUsageTable?: string,
): Promise<ImportCounts> {
  const existing = await listTables(client);
  const [control, records, earlierRecords, rollups, legacy] = await Promise.all([
    scanAll(client, tableNames.control, existing),
    scanAll(client, tableNames.usage, existing),
    earlierUsageTable && earlierUsageTable !== tableNames.usage
      ? scanAll(client, earlierUsageTable, existing)
      : Promise.resolve([]),
    scanAll(client, tableNames.rollups, existing),
    scanAll(client, tableNames.legacyUsage, existing),
  ]);
  // A record the migration of the earlier layout has carried is in both tables: the current copy is the one kept.
  // The rollups of its day are counted again from the records below, since the current layout's rollups may hold
  // part of the earlier ones (a migration stopped half-way) beside the earlier layout's own.
  const carriedIds = new Set(records.map((record) => String(record['id'])));
  const carriedDays = new Set(
    records
      .filter((record) => record['carried'] !== undefined)
      .map((record) => String(record['startedAt']).slice(0, 10)),
  );
  records.push(...earlierRecords.filter((record) => !carriedIds.has(String(record['id']))));
  const counts: ImportCounts = {
    members: 0,
    keys: 0,
    secrets: 0,
    connections: 0,
    leases: 0,
    records: 0,
    rollups: 0,
    legacyRecords: 0,
  };
  const members = new Map<string, ImportedMember>();
  const admissions = new Map<string, AdmissionItem>();
  const keys: KeyItem[] = [];
  const secrets: SecretLookupItem[] = [];
  const connections: ConnectionControlItem[] = [];
  let bootstrap: BootstrapItem | undefined;
  for (const item of control) {
    const pk = String(item.pk);
    if (pk.startsWith('member#')) members.set(pk.slice('member#'.length), item as unknown as ImportedMember);
    else if (pk.startsWith('adm#')) admissions.set(pk.slice('adm#'.length), item as unknown as AdmissionItem);
    else if (pk.startsWith('key#')) keys.push(item as unknown as KeyItem);
    else if (pk.startsWith('secret#')) secrets.push(item as unknown as SecretLookupItem);
    else if (pk.startsWith('connection#')) connections.push(item as unknown as ConnectionControlItem);
    else if (pk === 'meta#bootstrap') bootstrap = item as unknown as BootstrapItem;
    // Where the migration of the earlier layout stood: SQLite holds every record whole, so nothing is left to carry.
    else if (pk === earlierMigrationProgressKey) continue;
    // The audit log stays in the DynamoDB tables it was written to; the SQLite store starts a log of its own.
    else if (pk.startsWith('audit#') || pk.startsWith('audit-')) continue;
    // Team settings start again at their defaults on SQLite (the SSO default policy is set again there).
    else if (pk === 'meta#settings') continue;
    else throw new Error(`the control table holds an item this version cannot import: ${pk}`);
  }

  for (const [id, admission] of admissions) {
    const profile = members.get(id);
    if (!profile) continue;
    const revoked = keys.filter((key) => key.memberId === id && key.state === 'revoked');
    members.set(id, { ...profile, ...toMemberAccount(profile, admission, revoked) });
  }

  const run = (sql: string, ...values: unknown[]) => database.prepare(sql).run(...values);
  const insertRollup = (row: RollupRow) =>
    run(
      `INSERT INTO rollups (hour, member_id, key_id, upstream, provider, model, requests, failed, charge,
         input_tokens, input_tokens_reported, cached_input_tokens, cached_input_tokens_reported, output_tokens,
         output_tokens_reported) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.hour,
      row.memberId,
      row.keyId,
      row.upstream,
      row.provider,
      row.model,
      row.requests,
      row.failed,
      row.charge,
      row.inputTokens,
      row.inputTokensReported,
      row.cachedInputTokens,
      row.cachedInputTokensReported,
      row.outputTokens,
      row.outputTokensReported,
    );
  // Rows are copied as stored, whatever order the scan gave; the schema's references hold once all are in.
  database.pragma('foreign_keys = OFF');
  database
    .transaction(() => {
      for (const member of members.values()) {
        run(
          `INSERT INTO members (id, name, role, status, policy, created_at, holdings_usd, holdings_at, version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          member.id,
          member.name,
          member.role,
          member.status,
          JSON.stringify(member.policy ?? {}),
          member.createdAt,
          member.holdings?.usd ?? null,
          member.holdings?.at ?? null,
          // Items written before records carried versions read as version 1, as the engines read them.
          (member as { version?: number }).version ?? 1,
        );
        counts.members++;
        for (const [day, tokens] of Object.entries(member.tokenDays ?? {})) {
          run('INSERT INTO token_days (member_id, day, tokens) VALUES (?, ?, ?)', member.id, day, tokens);
        }
        for (const [day, requests] of Object.entries(member.holderDays ?? {})) {
          run('INSERT INTO holder_days (member_id, day, requests) VALUES (?, ?, ?)', member.id, day, requests);
        }
        for (const [minute, requests] of Object.entries(member.minutes ?? {})) {
          run('INSERT INTO member_minutes (member_id, minute, requests) VALUES (?, ?, ?)', member.id, minute, requests);
        }
        for (const [keyId, minutes] of Object.entries(member.keyMinutes ?? {})) {
          for (const [minute, requests] of Object.entries(minutes)) {
            run('INSERT INTO key_minutes (key_id, minute, requests) VALUES (?, ?, ?)', keyId, minute, requests);
          }
        }
        for (const [requestId, lease] of Object.entries(member.leases ?? {})) {
          run(
            'INSERT INTO leases (request_id, member_id, key_id, expires_at, reserved, day) VALUES (?, ?, ?, ?, ?, ?)',
            requestId,
            member.id,
            lease.keyId,
            lease.expiresAt,
            lease.reserved,
            lease.day,
          );
          counts.leases++;
        }
      }
      for (const key of keys) {
        // The member item's copy is what admission checked: a rotation stopped between its writes counts there.
        const admission = members.get(key.memberId)?.keys?.[key.id];
        run(
          `INSERT INTO keys (id, member_id, name, state, generation, rotated_at, expires_at, policy, created_at,
             key_prefix, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          key.id,
          key.memberId,
          key.name,
          admission?.state === 'revoked' ? 'revoked' : key.state,
          Math.max(key.generation, admission?.generation ?? 0),
          key.rotatedAt,
          key.expiresAt,
          JSON.stringify(key.policy ?? {}),
          key.createdAt,
          key.keyPrefix,
          (key as { version?: number }).version ?? 1,
        );
        counts.keys++;
      }
      for (const secret of secrets) {
        run(
          'INSERT INTO key_secrets (secret_hash, key_id, member_id, generation) VALUES (?, ?, ?, ?)',
          secret.pk.slice('secret#'.length),
          secret.keyId,
          secret.memberId,
          secret.generation,
        );
        counts.secrets++;
      }
      for (const connection of connections) {
        run(insertConnection, ...connectionRowValues(toConnection(connection)));
        counts.connections++;
      }
      if (bootstrap) {
        run("INSERT INTO settings (name, value) VALUES ('first_administrator', ?)", bootstrap.adminMemberId);
      }
      for (const item of records as unknown as UsageRecord[]) {
        const closed = item.state === 'running' ? undefined : item;
        run(
          `INSERT INTO records (id, member_id, key_id, provider, model, connection_id, upstream, wire, stream, started_at,
             day, reserved, state, status, ended_at, duration_ms, input_tokens, cached_input_tokens, output_tokens,
             charge, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          item.id,
          item.memberId,
          item.keyId,
          item.provider,
          item.model,
          item.connectionId,
          item.upstream,
          item.wire,
          item.stream ? 1 : 0,
          item.startedAt,
          item.day,
          item.reserved,
          item.state,
          closed?.status ?? null,
          closed?.endedAt ?? null,
          closed?.durationMs ?? null,
          closed?.inputTokens ?? null,
          closed?.cachedInputTokens ?? null,
          closed?.outputTokens ?? null,
          closed?.charge ?? null,
          closed?.source ?? null,
        );
        counts.records++;
      }
      for (const item of rollups as unknown as RollupItem[]) {
        // Hours only: a day's total is the sum of its hours. Earlier layout `day#<day>` (totals under `total#`),
        // current `h#<day>#<group>`.
        const day = item.pk.startsWith('day#')
          ? item.pk.slice('day#'.length)
          : item.pk.startsWith('h#')
            ? item.pk.slice(2, 12)
            : undefined;
        if (day === undefined || item.sk.startsWith('total#') || carriedDays.has(day)) continue;
        insertRollup({ ...toRollupRow(item), hour: `${day}T${item.hour ?? item.sk.slice(0, 2)}` });
        counts.rollups++;
      }
      const carriedDayRequests = (records as unknown as UsageRecord[])
        .filter((record) => carriedDays.has(record.startedAt.slice(0, 10)))
        .map(closedRequestOf)
        .filter((request) => request !== undefined);
      for (const row of foldIntoRollups(carriedDayRequests)) {
        insertRollup(row);
        counts.rollups++;
      }
      for (const item of legacy as unknown as StoredLegacyUsageRecord[]) {
        run(
          `INSERT INTO legacy_usage (id, generation, timestamp, day, request_id, key_id, member_id, provider, model,
             status, input_tokens, cached_input_tokens, output_tokens, duration_ms, raw, imported_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          item.id,
          item.generation,
          item.timestamp,
          item.day,
          item.requestId ?? null,
          item.keyId ?? null,
          item.memberId ?? null,
          item.provider,
          item.model,
          item.status === null || item.status === undefined ? null : JSON.stringify(item.status),
          item.inputTokens ?? null,
          item.cachedInputTokens ?? null,
          item.outputTokens ?? null,
          item.durationMs ?? null,
          item.raw,
          item.importedAt,
        );
        counts.legacyRecords++;
      }
    })
    .immediate();
  database.pragma('foreign_keys = ON');
  return counts;
}
