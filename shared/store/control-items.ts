import * as z from '../validation/zod.ts';

/**
 * Item shapes of the control table. Member items also carry admission state (key generations, token buckets,
 * rate windows, leases) so that ONE conditional write admits a request; see admission-store.ts.
 */
export const policySchema = z.strictObject({
  dailyTokens: z.optional(z.number().check(z.int(), z.nonnegative())),
  rpm: z.optional(z.number().check(z.int(), z.positive())),
  concurrency: z.optional(z.number().check(z.int(), z.positive())),
  maxOutput: z.optional(z.number().check(z.int(), z.positive())),
  providers: z.optional(z.array(z.string().check(z.minLength(1)))),
  models: z.optional(z.array(z.string().check(z.minLength(1)))),
});
export type Policy = z.infer<typeof policySchema>;

export const memberRoles = ['admin', 'member', 'holder'] as const;
export type MemberRole = (typeof memberRoles)[number];
const memberStatuses = ['active', 'disabled', 'suspended'] as const;
export type MemberStatus = (typeof memberStatuses)[number];

export interface MemberProfile {
  id: string;
  name: string;
  role: MemberRole;
  status: MemberStatus;
  policy: Policy;
  createdAt: string;
  /** A holder wallet's holdings in USD over the last 24 hours, with when they were measured. */
  holdings?: { usd: number; at: string } | undefined;
}

export interface KeyAdmissionState {
  generation: number;
  state: 'active' | 'revoked';
  /** When the last rotation wrote here: tells a rotation in progress from one that stopped half-way. */
  rotatedAt?: string;
}

export interface Lease {
  keyId: string;
  /** Epoch milliseconds after which the request counts as dead and the reaper settles it. */
  expiresAt: number;
  reserved: number;
  /** The UTC day whose token bucket holds the reservation. */
  day: string;
}

export interface MemberItem extends MemberProfile {
  pk: string;
  kind: 'member';
  keys: Record<string, KeyAdmissionState>;
  tokenDays: Record<string, number>;
  minutes: Record<string, number>;
  keyMinutes: Record<string, Record<string, number>>;
  leases: Record<string, Lease>;
  keyLeases: Record<string, Record<string, number>>;
  holderDays: Record<string, number>;
}

export interface KeyView {
  id: string;
  memberId: string;
  name: string;
  state: 'active' | 'revoked';
  expiresAt: string | null;
  policy: Policy;
  createdAt: string;
  rotatedAt: string | null;
  /** The first characters of the secret, enough to recognise a key in a list, never enough to use it. */
  keyPrefix: string;
}

export interface KeyItem extends KeyView {
  pk: string;
  kind: 'key';
  generation: number;
}

/** Looks a key up by the SHA-256 of its secret; the secret itself is never stored. */
export interface SecretLookupItem {
  pk: string;
  keyId: string;
  memberId: string;
  /** Compared with the key's current generation: an older one is a rotated-away secret. */
  generation: number;
}

export interface ConnectionView {
  id: string;
  provider: string;
  wire: 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';
  baseUrl: string;
  models: string[];
  upstream: string;
  enabled: boolean;
  createdAt: string;
}

export interface ConnectionItem extends ConnectionView {
  pk: string;
  kind: 'connection';
  /** Where the credential lives in the secret store; the credential itself never enters this table. */
  secretName: string;
}

export const memberKey = (id: string) => ({ pk: `member#${id}` });
/** A holder wallet is a member of its own, named after the wallet. */
export const holderMemberId = (wallet: string) => `wallet:${wallet}`;
export const keyKey = (id: string) => ({ pk: `key#${id}` });
export const secretKey = (hash: string) => ({ pk: `secret#${hash}` });
export const connectionKey = (id: string) => ({ pk: `connection#${id}` });

export function toMemberProfile(item: MemberItem): MemberProfile {
  return {
    id: item.id,
    name: item.name,
    role: item.role,
    status: item.status,
    policy: item.policy,
    createdAt: item.createdAt,
    ...(item.holdings ? { holdings: item.holdings } : {}),
  };
}

export function toKeyView(item: KeyItem): KeyView {
  return {
    id: item.id,
    memberId: item.memberId,
    name: item.name,
    state: item.state,
    expiresAt: item.expiresAt,
    policy: item.policy,
    createdAt: item.createdAt,
    rotatedAt: item.rotatedAt,
    keyPrefix: item.keyPrefix,
  };
}

export function toConnectionView(item: ConnectionItem): ConnectionView {
  return {
    id: item.id,
    provider: item.provider,
    wire: item.wire,
    baseUrl: item.baseUrl,
    models: item.models,
    upstream: item.upstream,
    enabled: item.enabled,
    createdAt: item.createdAt,
  };
}
