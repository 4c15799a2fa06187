import * as z from '../shared/validation/zod.ts';
import { connectionSchema, connectionTestSchema, issuedKeySchema, keySchema, memberSchema } from './admin-views.ts';
import { alertCommands } from './alert-commands.ts';
import { UsageError } from './cli-errors.ts';
import { type Command, defineCommand } from './command-definition.ts';
import {
  amountFlag,
  choiceFlag,
  dateTimeFlag,
  dayFlag,
  httpUrlFlag,
  modelsFlag,
  optionalSwitch,
  required,
  textFlag,
} from './flag-definitions.ts';
import { batchLegacyRecords, readLegacyUsageFile } from './legacy-usage-file.ts';
import { connectionListCommand, keyListCommand, memberListCommand } from './list-commands.ts';
import { accessFlags, dailyTokensFlag, limitFlags, policyFrom } from './policy-flags.ts';
import { renderConnection, renderConnectionTest, renderIssuedKey, renderKey, renderMember } from './render-views.ts';
import { updateCommands } from './update-commands.ts';

/**
 * The command table. Each entry is data: the words, the flags, how they become one admin API request, and how the
 * answer reads as text. A new command is one more entry here; parsing, help and output come from the entry.
 */

const memberRoles = ['admin', 'member'] as const;
const upstreamWires = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini', 'bedrock'] as const;

function idPath(collection: string, id: string, action: string): string {
  return `/admin/v1/${collection}/${encodeURIComponent(id)}/${action}`;
}

const memberResult = z.object({ member: memberSchema });
const keyResult = z.object({ key: keySchema });
const connectionResult = z.object({ connection: connectionSchema });
const legacyImportResult = z.object({ imported: z.number(), skipped: z.number() });
const rebuildResult = z.object({ days: z.number(), records: z.number(), rows: z.number() });
const migrationResult = z.object({
  state: z.enum(['carrying', 'waiting', 'complete']),
  step: z.string(),
  completedAt: z.nullable(z.string()),
  waitingUntil: z.nullable(z.string()),
  earlierRunning: z.number(),
  scannedRecords: z.number(),
  unreadableRecords: z.number(),
  carriedRecords: z.number(),
  days: z.number(),
  foldedPartitions: z.number(),
  partitionsToFold: z.number(),
  foldedRecords: z.number(),
  foldedDied: z.number(),
});
type MigrationResult = z.infer<typeof migrationResult>;

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** Where the migration of the earlier layout stands, in a line or two. */
function renderMigration(migration: MigrationResult): string {
  const scanned =
    `scanned ${plural(migration.scannedRecords, 'earlier record')}` +
    (migration.unreadableRecords > 0
      ? ` (${migration.unreadableRecords} not readable as records, left in the earlier table)`
      : '');
  switch (migration.state) {
    case 'complete':
      return (
        `complete${migration.completedAt ? ` since ${migration.completedAt}` : ''}: ${scanned}; ` +
        `${plural(migration.foldedRecords, 'earlier request')} of ${plural(migration.days, 'day')} in the ` +
        'current records and rollups' +
        (migration.foldedDied > 0 ? ` (${migration.foldedDied} that had died, closed as failed)` : '') +
        '. The earlier records table is no longer read ' +
        '(docs/store.md, "Upgrading a stage deployed with the earlier layout").\n'
      );
    case 'waiting':
      return (
        `waiting until ${migration.waitingUntil}: ${scanned}, ${migration.carriedRecords} carried so far. ` +
        (migration.earlierRunning > 0
          ? `${plural(migration.earlierRunning, 'request')} of the earlier version still running. `
          : 'The earlier version may still be running requests until then. ') +
        'The scheduled migration goes on by itself; or run this again after that.\n'
      );
    case 'carrying':
      return (
        `carrying (${migration.step}): ${scanned}, ${migration.carriedRecords} carried so far; ` +
        `${migration.foldedPartitions} of ${migration.partitionsToFold} record partitions in the rollups\n`
      );
    default: {
      const unknownState: never = migration.state;
      throw new Error(`unknown migration state ${String(unknownState)}`);
    }
  }
}

const dayMs = 86_400_000;

/** Every UTC day from `from` to `to`, inclusive: a rebuild is sent one day per request, so each stays short. */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(from); at <= Date.parse(to); at += dayMs) days.push(new Date(at).toISOString().slice(0, 10));
  if (days.length === 0) throw new UsageError(`--to ${to} is before --from ${from}`);
  return days;
}

function memberStateCommand(action: 'disable' | 'enable' | 'suspend', summary: string): Command {
  return defineCommand({
    words: ['member', action],
    summary,
    operands: ['ID'],
    flags: {},
    buildRequest: ({ operands }) => ({ method: 'POST', path: idPath('members', operands.ID, action) }),
    result: memberResult,
    render: ({ member }) => renderMember(member),
  });
}

function connectionStateCommand(action: 'enable' | 'disable', summary: string): Command {
  return defineCommand({
    words: ['connection', action],
    summary,
    operands: ['ID'],
    flags: {},
    buildRequest: ({ operands }) => ({ method: 'POST', path: idPath('connections', operands.ID, action) }),
    result: connectionResult,
    render: ({ connection }) => renderConnection(connection),
  });
}

export const commandTable: readonly Command[] = [
  defineCommand({
    words: ['member', 'create'],
    summary: 'Create a member, optionally with a policy that limits all of its keys',
    operands: [],
    flags: {
      name: required(textFlag('N', 'display name')),
      role: choiceFlag(memberRoles, 'role (default: member)'),
      ...dailyTokensFlag,
      ...limitFlags,
      ...accessFlags,
    },
    buildRequest: ({ flags }) => ({
      method: 'POST',
      path: '/admin/v1/members',
      body: { name: flags.name, role: flags.role, policy: policyFrom(flags) },
    }),
    result: memberResult,
    render: ({ member }) => renderMember(member),
  }),
  memberListCommand,
  memberStateCommand('disable', 'Disable a member; its keys stop working at once'),
  memberStateCommand('enable', 'Enable a disabled or suspended member again'),
  memberStateCommand('suspend', 'Suspend a member'),

  defineCommand({
    words: ['key', 'create'],
    summary: 'Issue a key for a member; the secret is printed once',
    operands: [],
    flags: {
      member: required(textFlag('ID', 'member that owns the key')),
      name: textFlag('N', 'label of the key'),
      expires: dateTimeFlag('ISO-8601', 'expiry: a date (midnight UTC) or a date-time with Z or an offset'),
      ...accessFlags,
      ...limitFlags,
    },
    buildRequest: ({ flags }) => ({
      method: 'POST',
      path: '/admin/v1/keys',
      body: { memberId: flags.member, name: flags.name, expiresAt: flags.expires, policy: policyFrom(flags) },
    }),
    result: issuedKeySchema,
    render: renderIssuedKey,
  }),
  defineCommand({
    words: ['holder', 'set'],
    summary: "Record a holder wallet's USD holdings over the last 24 hours (creates the wallet on first use)",
    operands: [],
    flags: {
      wallet: required(textFlag('W', 'the holder wallet')),
      usd: required(amountFlag('N', 'holdings in USD over the last 24 hours')),
    },
    buildRequest: ({ flags }) => ({
      method: 'POST',
      path: '/admin/v1/holders',
      body: { wallet: flags.wallet, usd: flags.usd },
    }),
    result: memberResult,
    render: ({ member }) => renderMember(member),
  }),
  defineCommand({
    words: ['holder', 'create-key'],
    summary: 'Issue a holder key (sk-<holder tag>-…) for a wallet; the secret is printed once',
    operands: [],
    flags: { wallet: required(textFlag('W', 'the holder wallet')) },
    buildRequest: ({ flags }) => ({
      method: 'POST',
      path: `/admin/v1/holders/${encodeURIComponent(flags.wallet)}/keys`,
    }),
    result: issuedKeySchema,
    render: renderIssuedKey,
  }),
  keyListCommand,
  defineCommand({
    words: ['key', 'revoke'],
    summary: 'Revoke a key; it stops working at once',
    operands: ['ID'],
    flags: {},
    buildRequest: ({ operands }) => ({ method: 'POST', path: idPath('keys', operands.ID, 'revoke') }),
    result: keyResult,
    render: ({ key }) => renderKey(key),
  }),
  defineCommand({
    words: ['key', 'rotate'],
    summary: 'Replace the secret of a key; the old one stops working and the new one is printed once',
    operands: ['ID'],
    flags: {},
    buildRequest: ({ operands }) => ({ method: 'POST', path: idPath('keys', operands.ID, 'rotate') }),
    result: issuedKeySchema,
    render: renderIssuedKey,
  }),

  defineCommand({
    words: ['connection', 'create'],
    summary: 'Add an upstream connection; the provider credential is read from standard input',
    operands: [],
    flags: {
      provider: required(textFlag('NAME', 'provider the connection serves')),
      wire: required(choiceFlag(upstreamWires, 'wire format the upstream speaks')),
      'base-url': httpUrlFlag(
        'URL',
        "base URL as the provider's SDK takes it (see the table in docs/admin-and-usage.md); bedrock: defaults to the region's runtime endpoint",
      ),
      region: textFlag('REGION', 'AWS region a bedrock connection signs for (docs/bedrock.md)'),
      models: modelsFlag(
        'id[:ctx=N][:max=N][:input=image+video],...',
        'model IDs served by this connection, each with its context window and largest output in tokens and the media it takes (image, video, audio, file) if known',
      ),
      upstream: textFlag('PREFIX', 'upstream prefix that routes to this connection'),
      'private-network': optionalSwitch(
        'the base URL is on a private network (loopback or private addresses; needed on AWS, never for metadata)',
      ),
      'api-key-stdin': optionalSwitch(
        'read the provider credential from standard input (trimmed, never echoed); required but for bedrock, whose requests are signed as the host when it is left out',
      ),
    },
    buildRequest: async ({ flags, readCredential }) => ({
      method: 'POST',
      path: '/admin/v1/connections',
      body: {
        ...connectionAddressFlags(flags),
        models: flags.models,
        upstream: flags.upstream,
        privateNetwork: flags['private-network'],
        apiKey: flags['api-key-stdin'] ? await readCredential() : undefined,
      },
    }),
    result: connectionResult,
    render: ({ connection }) => renderConnection(connection),
  }),
  connectionListCommand,
  defineCommand({
    words: ['connection', 'test'],
    summary:
      "Call a connection's upstream as traffic would and report its status, latency and model list (never the " +
      'credential); exits 1 when a call failed',
    operands: ['ID'],
    flags: {
      generate: optionalSwitch('also send a one-token generation, to the first model or to --model'),
      model: textFlag('ID', 'the model the generation asks for (one the connection serves)'),
    },
    buildRequest: ({ operands, flags }) => {
      if (flags.model !== undefined && !flags.generate) throw new UsageError('--model needs --generate');
      return {
        method: 'POST',
        path: idPath('connections', operands.ID, 'test'),
        // A bare test sends an empty body: the model list only.
        body: { generate: flags.generate || undefined, model: flags.model },
      };
    },
    result: connectionTestSchema,
    render: renderConnectionTest,
    succeeded: (report) => report.ok,
  }),
  connectionStateCommand('enable', 'Put a connection back into rotation'),
  connectionStateCommand('disable', 'Take a connection out of rotation'),

  defineCommand({
    words: ['usage', 'import-legacy'],
    summary:
      'Import usage records of the earlier engine (0.1) from a JSON-lines FILE, stored apart from gateway records; ' +
      'importing a file again skips the records already imported',
    operands: ['FILE'],
    flags: {},
    // The whole file is checked before the first batch goes out, so a malformed file stores nothing.
    buildRequest: async ({ operands, readTextFile }) =>
      batchLegacyRecords(readLegacyUsageFile(await readTextFile(operands.FILE), operands.FILE)).map((records) => ({
        method: 'POST' as const,
        path: '/admin/v1/legacy-usage',
        body: { records },
      })),
    result: legacyImportResult,
    combine: (results) => ({
      imported: results.reduce((sum, result) => sum + result.imported, 0),
      skipped: results.reduce((sum, result) => sum + result.skipped, 0),
    }),
    render: ({ imported, skipped }) =>
      `imported ${imported} record${imported === 1 ? '' : 's'} of the 0.1 engine; ` +
      `skipped ${skipped} already imported\n`,
  }),
  defineCommand({
    words: ['usage', 'rebuild-rollups'],
    summary:
      'Rebuild the hourly and daily rollups of UTC days FROM to TO (YYYY-MM-DD, inclusive) from their records; ' +
      'a day can be rebuilt once its requests have all settled (the next day, after one lease length)',
    operands: [],
    flags: {
      from: required(dayFlag('DAY', 'first UTC day')),
      to: required(dayFlag('DAY', 'last UTC day')),
    },
    buildRequest: ({ flags }) =>
      daysOf(flags.from, flags.to).map((day) => ({
        method: 'POST' as const,
        path: '/admin/v1/rollups/rebuild',
        body: { from: day, to: day },
      })),
    result: rebuildResult,
    combine: (results) => ({
      days: results.reduce((sum, result) => sum + result.days, 0),
      records: results.reduce((sum, result) => sum + result.records, 0),
      rows: results.reduce((sum, result) => sum + result.rows, 0),
    }),
    render: ({ days, records, rows }) =>
      `rebuilt the rollups of ${days} day${days === 1 ? '' : 's'} from ${records} record${records === 1 ? '' : 's'} ` +
      `(${rows} hourly row${rows === 1 ? '' : 's'})\n`,
  }),
  defineCommand({
    words: ['usage', 'migrate-earlier-records'],
    summary:
      'Carry the usage history of the earlier DynamoDB layout into the current one after an upgrade (records, then ' +
      'rollups); runs until complete or until it must wait, and is safe to run again, or beside the scheduled migration',
    operands: [],
    flags: { status: optionalSwitch('only show where the migration stands') },
    buildRequest: ({ flags }) =>
      flags.status
        ? { method: 'GET', path: '/admin/v1/earlier-records' }
        : { method: 'POST', path: '/admin/v1/earlier-records/migrate' },
    result: migrationResult,
    repeatWhile: (migration, request) => request.method === 'POST' && migration.state === 'carrying',
    progress: renderMigration,
    render: renderMigration,
  }),
  ...alertCommands,
  ...updateCommands,
];

/**
 * Where `connection create` reaches its upstream: every wire but Bedrock's needs --base-url and --api-key-stdin;
 * Bedrock's needs --region (its base URL defaults to the region's endpoint, its credential is the host's identity
 * unless a Bedrock API key is given). Refused here, before anything is read from standard input.
 */
function connectionAddressFlags(flags: {
  provider: string;
  wire: string;
  'base-url'?: string | undefined;
  region?: string | undefined;
  'api-key-stdin'?: boolean | undefined;
}): Record<string, unknown> {
  if (flags.wire === 'bedrock') {
    if (flags.region === undefined) throw new UsageError('connection create: --wire bedrock needs --region');
  } else {
    if (flags['api-key-stdin'] !== true)
      throw new UsageError('connection create: missing required flag --api-key-stdin');
    if (flags['base-url'] === undefined) throw new UsageError('connection create: missing required flag --base-url');
    if (flags.region !== undefined) throw new UsageError('connection create: --region is for --wire bedrock only');
  }
  return {
    provider: flags.provider,
    wire: flags.wire,
    ...(flags['base-url'] === undefined ? {} : { baseUrl: flags['base-url'] }),
    ...(flags.region === undefined ? {} : { region: flags.region }),
  };
}
