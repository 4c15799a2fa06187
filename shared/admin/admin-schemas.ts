import { type MemberRole, maxModelLimitTokens, memberRoles, policySchema } from '../store/control-items.ts';
import * as z from '../validation/zod.ts';
import { inputModalities } from '../wires/input-media.ts';
import { connectionWires } from '../wires/wire-names.ts';

/*
 * This file is imported by the server, the CLI and the web console's build: it imports nothing Node-specific.
 */

/** Roles `POST /members` may give: a holder wallet's member is created when its holdings are first set. */
const creatableRoles = memberRoles.filter((role): role is Exclude<MemberRole, 'holder'> => role !== 'holder');

/** Bodies the admin API accepts: strict, so a misspelt field is an error rather than silently ignored. */
export const createMemberBody = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  role: z._default(z.enum(creatableRoles), 'member'),
  policy: z._default(policySchema, {}),
});

/** A key's own policy: a member's keys share the member's one daily allowance, so a key has no `dailyTokens`. */
export const keyPolicySchema = z.omit(policySchema, { dailyTokens: true });

/** The version the caller read: every update is conditional on it (a stale one is a 409 `version_conflict`). */
export const versionSchema = z.number().check(z.int(), z.positive());
const nameSchema = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));

/** The ids the store issues (`mem_…`, `key_…`, `con_…`, `wallet:…`): what a path segment or a body may name. */
export const idSchema = z.string().check(z.regex(/^[A-Za-z0-9._:-]{1,200}$/, 'not an id'));

/** More models than any provider lists; a connection serving a whole catalog declares none and takes them all. */
export const maxConnectionModels = 500;

export const createKeyBody = z.strictObject({
  memberId: idSchema,
  name: z._default(z.string().check(z.trim(), z.minLength(1), z.maxLength(200)), 'default'),
  expiresAt: z.nullish(z.iso.datetime({ offset: true })),
  policy: z._default(keyPolicySchema, {}),
});

const modelIdSchema = z.string().check(z.minLength(1), z.maxLength(256));
const modelLimitSchema = z.number().check(z.int(), z.positive(), z.lte(maxModelLimitTokens));

/** A model a connection serves: its id, or its id with the context window and largest output it has there. */
export const modelDeclarationSchema = z.union([
  modelIdSchema,
  z.strictObject({
    id: modelIdSchema,
    contextWindow: z.optional(modelLimitSchema),
    maxOutput: z.optional(modelLimitSchema),
    // What the model takes as input there; text is always among them.
    inputModalities: z.optional(z.array(z.enum(inputModalities)).check(z.maxLength(inputModalities.length))),
  }),
]);
export type ModelDeclaration = z.infer<typeof modelDeclarationSchema>;

export const createConnectionBody = z.strictObject({
  provider: z
    .string()
    .check(z.regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a provider name is lowercase letters, digits, ".", "_" or "-"')),
  wire: z.enum(connectionWires),
  /** Checked further, against the gateway's network setting, by shared/net/base-url.ts. */
  baseUrl: z.string().check(z.minLength(1), z.maxLength(2048)),
  // At most 500 ids of at most 256 characters, each with two numbers: a connection item stays far inside
  // DynamoDB's 400 KB.
  models: z._default(z.array(modelDeclarationSchema).check(z.maxLength(maxConnectionModels)), []),
  upstream: z._default(z.string().check(z.minLength(1)), 'lb'),
  /** The administrator says this connection reaches a private network (a VPC endpoint, a proxy, a local model). */
  privateNetwork: z._default(z.boolean(), false),
  apiKey: z.string().check(z.minLength(1), z.maxLength(10_000)),
});

/** `POST /members/{id}/update`: the fields given change, the others stay. */
export const updateMemberBody = z.strictObject({
  version: versionSchema,
  name: z.optional(nameSchema),
  role: z.optional(z.enum(creatableRoles)),
  policy: z.optional(policySchema),
});

/** `POST /keys/{id}/update`: `expiresAt: null` makes the key never expire. */
export const updateKeyBody = z.strictObject({
  version: versionSchema,
  name: z.optional(nameSchema),
  policy: z.optional(keyPolicySchema),
  expiresAt: z.optional(z.nullable(z.iso.datetime({ offset: true }))),
});

/** `POST /connections/{id}/update`: `apiKey` is a new credential, stored first and never echoed. */
export const updateConnectionBody = z.strictObject({
  version: versionSchema,
  models: z.optional(z.array(modelDeclarationSchema).check(z.maxLength(maxConnectionModels))),
  baseUrl: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  enabled: z.optional(z.boolean()),
  apiKey: z.optional(z.string().check(z.minLength(1), z.maxLength(10_000))),
});

/** `POST /connections/{id}/test`: the model list always; a one-token generation too when asked. */
export const testConnectionBody = z.strictObject({
  generate: z.optional(z.boolean()),
  model: z.optional(modelIdSchema),
});

/** A wallet address or name as the holdings source knows it; kept to characters that are safe in paths and keys. */
export const walletSchema = z
  .string()
  .check(z.regex(/^[A-Za-z0-9._:-]{3,128}$/, 'a wallet is 3-128 letters, digits, ".", "_", ":" or "-"'));

// z.number() refuses Infinity and NaN by itself, so no separate finiteness check is needed.
export const setHoldingsBody = z.strictObject({ wallet: walletSchema, usd: z.number().check(z.nonnegative()) });

/**
 * Records per import request: it bounds the puts one admin invocation makes within its time-out. 100 records of the
 * largest size (32 KiB) would pass the 2 MiB body limit, so the CLI also splits batches by size.
 */
export const maxLegacyRecordsPerRequest = 100;

/** A batch of 0.1 usage records; each record is read by `readLegacyUsageRecord`, which reports its own problems. */
export const importLegacyUsageBody = z.strictObject({
  records: z.array(z.unknown()).check(z.minLength(1), z.maxLength(maxLegacyRecordsPerRequest)),
});

/** A UTC calendar day, `YYYY-MM-DD`, that exists. */
export const utcDaySchema = z.iso.date();

/** The days whose rollups to rebuild from their records, first and last included. */
export const rebuildRollupsBody = z.strictObject({ from: utcDaySchema, to: utcDaySchema });
