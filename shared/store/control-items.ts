import * as z from '../validation/zod.ts';
import { type InputModality, inputModalities } from '../wires/input-media.ts';
import type { ConnectionWire } from '../wires/wire-names.ts';

/**
 * The control data as the domain sees it, whichever engine keeps it: members and their policies, keys (never
 * their secrets, only the hash of one), connections, and the admission state of a member.
 */
export const policySchema = z.strictObject({
  dailyTokens: z.optional(z.number().check(z.int(), z.nonnegative())),
  rpm: z.optional(z.number().check(z.int(), z.positive())),
  concurrency: z.optional(z.number().check(z.int(), z.positive())),
  maxOutput: z.optional(z.number().check(z.int(), z.positive())),
  // Bounded so that a policy always fits its item (DynamoDB holds 400 KB) beside the member's admission state.
  providers: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(64))).check(z.maxLength(64))),
  models: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(320))).check(z.maxLength(256))),
});
export type Policy = z.infer<typeof policySchema>;

export const memberRoles = ['admin', 'member', 'holder'] as const;
export type MemberRole = (typeof memberRoles)[number];
export const memberStatuses = ['active', 'disabled', 'suspended'] as const;
export type MemberStatus = (typeof memberStatuses)[number];

export interface MemberProfile {
  id: string;
  name: string;
  role: MemberRole;
  status: MemberStatus;
  policy: Policy;
  createdAt: string;
  /** 1 at creation, +1 per change; every update is conditional on the version the caller read. */
  version: number;
  /** A holder wallet's holdings in USD over the last 24 hours, with when they were measured. */
  holdings?: { usd: number; at: string } | undefined;
}

export interface NewMember {
  name: string;
  role: MemberRole;
  policy: Policy;
  /** A chosen id (the first administrator's); otherwise the store makes one. */
  id?: string;
}

/** A holder wallet is a member of its own, named after the wallet. */
export const holderMemberId = (wallet: string) => `wallet:${wallet}`;

export type KeyState = 'active' | 'revoked';

/** What admission checks of a key: the generation of its current secret and whether it was revoked. */
export interface KeyAdmissionState {
  generation: number;
  state: KeyState;
  /** When the last rotation began: tells a rotation in progress from one that stopped half-way. */
  rotatedAt?: string | undefined;
}

/** A concurrency lease: one admitted request that has not settled yet. */
export interface Lease {
  keyId: string;
  /** Epoch milliseconds after which the request counts as dead and the reaper settles it. */
  expiresAt: number;
  reserved: number;
  /** The UTC day whose token count holds the reservation. */
  day: string;
  /** When the request was admitted (its record's `startedAt`), where the engine keeps it with the lease. */
  startedAt?: string | undefined;
}

/**
 * A member's admission state as admission sees it: key states, the tokens used or reserved per UTC day, requests
 * per UTC minute (member and key), open leases, and holder requests per UTC day. For inspection and the cold
 * path (saying why an admission was refused); the hot path never reads it.
 */
export interface MemberAccount extends MemberProfile {
  keys: Record<string, KeyAdmissionState>;
  tokenDays: Record<string, number>;
  minutes: Record<string, number>;
  keyMinutes: Record<string, Record<string, number>>;
  leases: Record<string, Lease>;
  /** Open leases per key: request id → expiry. */
  keyLeases: Record<string, Record<string, number>>;
  holderDays: Record<string, number>;
  /**
   * The oldest member and key versions admission still accepts from a caller's (possibly cached) principal: a
   * change of policy, limits or expiry raises them, so the next admission made with what was read before it is
   * refused as `policy_changed` and the caller reads again. Absent: no floor (nothing changed since).
   */
  policyFloors?: { member: number; keys: Record<string, number> } | undefined;
}

/** What `members.update` may change; absent fields stay as they are. */
export interface MemberChanges {
  name?: string | undefined;
  role?: MemberRole | undefined;
  policy?: Policy | undefined;
}

/** What `keys.update` may change. */
export interface KeyChanges {
  name?: string | undefined;
  policy?: Policy | undefined;
  expiresAt?: string | null | undefined;
}

/** What `connections.update` may change (`secretName`: the credential now lives under a new name). */
export interface ConnectionChanges {
  models?: string[] | undefined;
  modelLimits?: DeclaredModelLimits[] | undefined;
  baseUrl?: string | undefined;
  enabled?: boolean | undefined;
  secretName?: string | undefined;
}

export interface KeyView {
  id: string;
  memberId: string;
  name: string;
  state: KeyState;
  expiresAt: string | null;
  policy: Policy;
  createdAt: string;
  rotatedAt: string | null;
  /** The first characters of the secret, enough to recognise a key in a list, never enough to use it. */
  keyPrefix: string;
  /** 1 at creation, +1 per change (update, revocation, rotation). */
  version: number;
}

/** A key with the generation of its current secret: a presented secret of an older generation was rotated away. */
export interface KeyRecord extends KeyView {
  generation: number;
}

/** A secret as the store keeps it: its SHA-256 and the prefix shown in lists. The secret itself is never stored. */
export interface StoredSecret {
  secretHash: string;
  keyPrefix: string;
}

export interface NewKey extends StoredSecret {
  memberId: string;
  name: string;
  expiresAt: string | null;
  policy: Policy;
}

/** What the hash of a presented secret finds. */
export interface SecretLookup {
  keyId: string;
  memberId: string;
  /** Compared with the key's current generation: an older one is a rotated-away secret. */
  generation: number;
}

/**
 * What a connection's administrator declares of one model it serves: its context window and largest output, in
 * tokens. For a model outside the catalog they are the only limits the gateway knows; for a catalog model they
 * are this upstream's own, and go before the catalog's.
 */
export interface DeclaredModelLimits {
  /** The model as the connection's `models` names it. */
  id: string;
  contextWindow: number | null;
  maxOutput: number | null;
  /**
   * What the model takes as input on this connection (text always; the media among them are checked before a
   * request is reserved, shared/catalog/input-modalities.ts); absent where the connection states nothing.
   */
  inputModalities?: InputModality[];
}

/** A model limit as the store keeps it: a whole number of tokens, far above any model's and far below overflow. */
export const maxModelLimitTokens = 100_000_000;
const modelLimitSchema = z.nullable(z.number().check(z.int(), z.positive(), z.lte(maxModelLimitTokens)));

const declaredModelLimitsSchema = z.object({
  id: z.string().check(z.minLength(1)),
  contextWindow: z._default(modelLimitSchema, null),
  maxOutput: z._default(modelLimitSchema, null),
  inputModalities: z.optional(z.array(z.enum(inputModalities))),
});

/**
 * Read tolerantly: a connection stored before limits existed has none, and a malformed entry is left out rather
 * than failing every request that lists connections.
 */
export function readDeclaredModelLimits(stored: unknown): DeclaredModelLimits[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((entry) => {
    const parsed = declaredModelLimitsSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

export interface ConnectionView {
  id: string;
  provider: string;
  wire: ConnectionWire;
  /** The AWS region a Bedrock connection signs for (its SigV4 scope); absent on every other wire. */
  region?: string;
  baseUrl: string;
  models: string[];
  /** The limits declared for some of `models`; a model not listed here has the catalog's, or none. */
  modelLimits: DeclaredModelLimits[];
  upstream: string;
  /** Marked by an administrator as reaching a private network: loopback and private addresses allowed on AWS. */
  privateNetwork: boolean;
  enabled: boolean;
  createdAt: string;
  /** 1 at creation, +1 per change. */
  version: number;
}

export interface ConnectionItem extends ConnectionView {
  /** Where the credential lives in the secret store; the credential itself never enters the store. */
  secretName: string;
}

export function toKeyView(key: KeyView): KeyView {
  return {
    id: key.id,
    memberId: key.memberId,
    name: key.name,
    state: key.state,
    expiresAt: key.expiresAt,
    policy: key.policy,
    createdAt: key.createdAt,
    rotatedAt: key.rotatedAt,
    keyPrefix: key.keyPrefix,
    version: key.version ?? 1,
  };
}

export function toConnectionView(connection: ConnectionView): ConnectionView {
  return {
    id: connection.id,
    provider: connection.provider,
    wire: connection.wire,
    ...(connection.region === undefined ? {} : { region: connection.region }),
    baseUrl: connection.baseUrl,
    models: connection.models,
    modelLimits: connection.modelLimits,
    upstream: connection.upstream,
    privateNetwork: connection.privateNetwork,
    enabled: connection.enabled,
    createdAt: connection.createdAt,
    version: connection.version ?? 1,
  };
}

export function toMemberProfile(member: MemberProfile): MemberProfile {
  return {
    id: member.id,
    name: member.name,
    role: member.role,
    status: member.status,
    policy: member.policy,
    createdAt: member.createdAt,
    // A record stored before versions existed reads as version 1.
    version: member.version ?? 1,
    ...(member.holdings ? { holdings: member.holdings } : {}),
  };
}
