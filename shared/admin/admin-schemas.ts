import * as z from 'zod';
import { upstreamWires } from '../http/wire.ts';
import { memberRoles, policySchema } from '../store/control-items.ts';
import { maxLegacyRecordsPerRequest } from './legacy-usage-record.ts';

/** Bodies the admin API accepts: strict, so a misspelt field is an error rather than silently ignored. */
export const createMemberBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    role: z.enum(memberRoles).exclude(['holder']).default('member'),
    policy: policySchema.default({}),
  })
  .strict();

const keyPolicySchema = policySchema.omit({ dailyTokens: true });

export const createKeyBody = z
  .object({
    memberId: z.string().min(1),
    name: z.string().trim().min(1).max(200).default('default'),
    expiresAt: z.iso.datetime({ offset: true }).nullish(),
    policy: keyPolicySchema.default({}),
  })
  .strict();

export const createConnectionBody = z
  .object({
    provider: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a provider name is lowercase letters, digits, ".", "_" or "-"'),
    wire: z.enum(upstreamWires),
    baseUrl: z.url({ protocol: /^https?$/ }),
    models: z.array(z.string().min(1).max(256)).default([]),
    upstream: z.string().min(1).default('lb'),
    apiKey: z.string().min(1).max(10_000),
  })
  .strict();

/** A wallet address or name as the holdings source knows it; kept to characters that are safe in paths and keys. */
export const walletSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{3,128}$/, 'a wallet is 3-128 letters, digits, ".", "_", ":" or "-"');

export const setHoldingsBody = z.object({ wallet: walletSchema, usd: z.number().finite().nonnegative() }).strict();

/** A batch of 0.1 usage records; each record is read by `readLegacyUsageRecord`, which reports its own problems. */
export const importLegacyUsageBody = z
  .object({ records: z.array(z.unknown()).min(1).max(maxLegacyRecordsPerRequest) })
  .strict();
