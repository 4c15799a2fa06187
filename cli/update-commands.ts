import * as z from '../shared/validation/zod.ts';
import { connectionSchema, keySchema, memberSchema } from './admin-views.ts';
import { type Command, defineCommand } from './command-definition.ts';
import { httpUrlFlag, integerFlag, modelsFlag, optionalSwitch, required, textFlag } from './flag-definitions.ts';
import { renderConnection, renderKey, renderMember } from './render-views.ts';

/**
 * The CLI verbs of the admin API's updates and audit log. An update names the version it was read at
 * (`member get` prints it); a stale one is refused by the gateway with `version_conflict`.
 */
const versionFlag = required(integerFlag('N', 'the version read (see `member get`); a stale one is refused', 1));
const idPath = (collection: string, id: string, action?: string) =>
  `/admin/v1/${collection}/${encodeURIComponent(id)}${action ? `/${action}` : ''}`;

const versioned = <Shape extends z.ZodMiniObject>(schema: Shape) => z.extend(schema, { version: z.number() });
const memberViewSchema = z.extend(versioned(memberSchema), {
  keyCount: z.optional(z.number()),
  today: z.optional(
    z.object({
      used: z.number(),
      reserved: z.number(),
      left: z.nullable(z.number()),
      dailyTokens: z.nullable(z.number()),
      resetsAt: z.string(),
    }),
  ),
});
const auditEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.object({ memberId: z.string(), keyId: z.nullable(z.string()), via: z.string() }),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string() }),
  before: z.nullable(z.record(z.string(), z.unknown())),
  after: z.nullable(z.record(z.string(), z.unknown())),
});

export const updateCommands: readonly Command[] = [
  defineCommand({
    words: ['member', 'get'],
    summary: "Show a member with its version, live keys and today's allowance",
    operands: ['ID'],
    flags: {},
    buildRequest: ({ operands }) => ({ method: 'GET', path: idPath('members', operands.ID) }),
    result: z.object({ member: memberViewSchema }),
    render: ({ member }) =>
      [
        renderMember(member),
        `version ${member.version}; live keys ${member.keyCount ?? 0}`,
        member.today
          ? `today: used ${member.today.used}, reserved ${member.today.reserved}, left ${member.today.left ?? 'unlimited'} (resets ${member.today.resetsAt})`
          : '',
      ]
        .filter((line) => line !== '')
        .join('\n'),
  }),
  defineCommand({
    words: ['member', 'update'],
    summary: "Change a member's name or limits at the version read",
    operands: ['ID'],
    flags: {
      version: versionFlag,
      name: textFlag('N', 'the new name'),
      'daily-tokens': integerFlag('N', 'daily token allowance (the whole policy is replaced by the limits given)'),
      rpm: integerFlag('N', 'requests per minute', 1),
      concurrency: integerFlag('N', 'requests in flight at once', 1),
    },
    buildRequest: ({ operands, flags }) => {
      const policy = { dailyTokens: flags['daily-tokens'], rpm: flags.rpm, concurrency: flags.concurrency };
      const hasPolicy = Object.values(policy).some((value) => value !== undefined);
      return {
        method: 'POST',
        path: idPath('members', operands.ID, 'update'),
        body: { version: flags.version, name: flags.name, ...(hasPolicy ? { policy } : {}) },
      };
    },
    result: z.object({ member: versioned(memberSchema) }),
    render: ({ member }) => `${renderMember(member)}\nversion ${member.version}`,
  }),
  defineCommand({
    words: ['key', 'update'],
    summary: "Change a key's name or expiry at the version read",
    operands: ['ID'],
    flags: {
      version: versionFlag,
      name: textFlag('N', 'the new name'),
      expires: textFlag('ISO-8601|never', 'the new expiry, or "never"'),
    },
    buildRequest: ({ operands, flags }) => ({
      method: 'POST',
      path: idPath('keys', operands.ID, 'update'),
      body: {
        version: flags.version,
        name: flags.name,
        ...(flags.expires === undefined ? {} : { expiresAt: flags.expires === 'never' ? null : flags.expires }),
      },
    }),
    result: z.object({ key: versioned(keySchema) }),
    render: ({ key }) => `${renderKey(key)}\nversion ${key.version}`,
  }),
  defineCommand({
    words: ['connection', 'update'],
    summary: "Change a connection's models or base URL, or give it a new credential (from standard input)",
    operands: ['ID'],
    flags: {
      version: versionFlag,
      models: modelsFlag('id[:ctx=N][:max=N][:input=image+video],...', 'the models it serves (replaces the list)'),
      'base-url': httpUrlFlag('URL', "the new base URL, as the provider's SDK takes it"),
      'api-key-stdin': optionalSwitch('read a new provider credential from standard input (trimmed, never echoed)'),
    },
    buildRequest: async ({ operands, flags, readCredential }) => ({
      method: 'POST',
      path: idPath('connections', operands.ID, 'update'),
      body: {
        version: flags.version,
        models: flags.models,
        baseUrl: flags['base-url'],
        ...(flags['api-key-stdin'] ? { apiKey: await readCredential() } : {}),
      },
    }),
    result: z.object({ connection: versioned(connectionSchema) }),
    render: ({ connection }) => `${renderConnection(connection)}
version ${connection.version}`,
  }),
  defineCommand({
    words: ['audit', 'list'],
    summary: 'List the audit log, newest first',
    operands: [],
    flags: {
      actor: textFlag('ID', 'only changes made by this member'),
      action: textFlag('A', 'only this action, such as member.update'),
      target: textFlag('ID', 'only changes to this member, key or connection'),
      limit: integerFlag('N', 'entries per page (1-200)', 1),
      cursor: textFlag('C', 'the next page, as the previous one printed it'),
    },
    buildRequest: ({ flags }) => ({
      method: 'GET',
      path: '/admin/v1/audit',
      query: Object.fromEntries(
        Object.entries({
          actor: flags.actor,
          action: flags.action,
          target: flags.target,
          limit: flags.limit === undefined ? undefined : String(flags.limit),
          cursor: flags.cursor,
        }).filter((entry): entry is [string, string] => entry[1] !== undefined),
      ),
    }),
    result: z.object({ entries: z.array(auditEntrySchema), nextCursor: z.nullable(z.string()) }),
    render: ({ entries, nextCursor }) =>
      [
        ...entries.map(
          (entry) =>
            `${entry.at}  ${entry.action.padEnd(20)} ${entry.target.type} ${entry.target.id}  by ${entry.actor.memberId}`,
        ),
        ...(nextCursor ? [`more: --cursor ${nextCursor}`] : []),
      ].join('\n'),
  }),
  defineCommand({
    words: ['settings', 'get'],
    summary: 'Show the team settings (the default policy of members who sign in by SSO)',
    operands: [],
    flags: {},
    buildRequest: () => ({ method: 'GET', path: '/admin/v1/settings' }),
    result: z.object({ settings: z.object({ version: z.number(), defaultPolicy: z.record(z.string(), z.unknown()) }) }),
    render: ({ settings }) => `version ${settings.version}\ndefault policy ${JSON.stringify(settings.defaultPolicy)}`,
  }),
];
