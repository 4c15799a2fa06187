import * as z from '../shared/validation/zod.ts';
import { connectionSchema, keySchema, memberSchema, policyViewSchema } from './admin-views.ts';
import { type Command, defineCommand } from './command-definition.ts';
import {
  choiceFlag,
  dateTimeFlag,
  type FlagDefinition,
  httpUrlFlag,
  integerFlag,
  modelsFlag,
  optionalSwitch,
  required,
  textFlag,
} from './flag-definitions.ts';
import { auditListCommand } from './list-commands.ts';
import { accessFlags, dailyTokensFlag, limitFlags, policyFrom } from './policy-flags.ts';
import { formatPolicy, renderConnection, renderKey, renderMember } from './render-views.ts';

/**
 * The CLI verbs of the admin API's updates and the team settings. An update names the version it was read at
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
const settingsResult = z.object({ settings: z.object({ version: z.number(), defaultPolicy: policyViewSchema }) });
const renderSettings = ({ settings }: z.infer<typeof settingsResult>) =>
  `version ${settings.version}\ndefault policy ${formatPolicy(settings.defaultPolicy)}\n`;

/** `never` lifts the expiry; anything else is read as `key create --expires` reads it. */
const expiryDate = dateTimeFlag(
  'ISO-8601|never',
  'the new expiry: a date (midnight UTC), a date-time with a zone, or "never"',
);
const expiryFlag: FlagDefinition<string | null | undefined> = {
  ...expiryDate,
  read: (occurrences, flag) =>
    occurrences.length === 1 && occurrences[0] === 'never' ? null : expiryDate.read(occurrences, flag),
};

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
    summary:
      "Change a member's name, role or policy at the version read; policy flags replace the whole policy (the " +
      'limits not given are lifted), as the API does',
    operands: ['ID'],
    flags: {
      version: versionFlag,
      name: textFlag('N', 'the new name'),
      role: choiceFlag(['admin', 'member'], 'the new role'),
      ...dailyTokensFlag,
      ...limitFlags,
      ...accessFlags,
    },
    buildRequest: ({ operands, flags }) => {
      const policy = policyFrom(flags);
      return {
        method: 'POST',
        path: idPath('members', operands.ID, 'update'),
        body: { version: flags.version, name: flags.name, role: flags.role, ...(policy ? { policy } : {}) },
      };
    },
    result: z.object({ member: versioned(memberSchema) }),
    render: ({ member }) => `${renderMember(member)}\nversion ${member.version}`,
  }),
  defineCommand({
    words: ['key', 'update'],
    summary:
      "Change a key's name, policy or expiry at the version read; policy flags replace the key's whole policy, as " +
      'the API does',
    operands: ['ID'],
    flags: {
      version: versionFlag,
      name: textFlag('N', 'the new name'),
      expires: expiryFlag,
      ...limitFlags,
      ...accessFlags,
    },
    buildRequest: ({ operands, flags }) => {
      const policy = policyFrom(flags);
      return {
        method: 'POST',
        path: idPath('keys', operands.ID, 'update'),
        body: {
          version: flags.version,
          name: flags.name,
          ...(policy ? { policy } : {}),
          ...(flags.expires === undefined ? {} : { expiresAt: flags.expires }),
        },
      };
    },
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
  auditListCommand,
  defineCommand({
    words: ['settings', 'get'],
    summary: 'Show the team settings (the default policy of members who sign in by SSO)',
    operands: [],
    flags: {},
    buildRequest: () => ({ method: 'GET', path: '/admin/v1/settings' }),
    result: settingsResult,
    render: renderSettings,
  }),
  defineCommand({
    words: ['settings', 'update'],
    summary:
      'Set the default policy of members who sign in by SSO, at the version read; the limits given replace the ' +
      'whole default (none given: no limits)',
    operands: [],
    flags: { version: versionFlag, ...dailyTokensFlag, ...limitFlags, ...accessFlags },
    buildRequest: ({ flags }) => ({
      method: 'POST',
      path: '/admin/v1/settings/update',
      body: { version: flags.version, defaultPolicy: policyFrom(flags) ?? {} },
    }),
    result: settingsResult,
    render: renderSettings,
  }),
];
