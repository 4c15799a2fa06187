/**
 * The admin API's answers as the console reads them (docs/admin-api.md; the lead's contract). Types only: the
 * request bodies are checked with the server's own zod schemas (shared/admin/admin-schemas.ts), imported into
 * the build, so the console and the gateway refuse the same input.
 */
import type { ConnectionView, KeyView, MemberProfile, Policy } from '../../../shared/store/control-items.ts';

export type { Policy };

export interface Today {
  used: number;
  reserved: number;
  /** null when the member has no daily limit. */
  left: number | null;
  dailyTokens: number | null;
  resetsAt: string;
}

/** A member as the lists show it; `version`, `keyCount` and `today` arrive with the admin API's list endpoints. */
export interface MemberView extends MemberProfile {
  keyCount?: number;
  today?: Today;
}

export interface KeyRow extends Omit<KeyView, 'state'> {
  state: 'active' | 'revoked' | 'expired';
}

export type ConnectionRow = ConnectionView;

export interface Page<Name extends string, Item> {
  items: Item[];
  nextCursor: string | null;
  /** The list's name in the answer (`members`, `keys`, ...). */
  name: Name;
}

/**
 * A newly issued secret: `POST /keys`, `/keys/:id/rotate` and holder keys answer the key's fields with the secret as
 * `key`; the contract writes `/me/keys` as `{ key, secret }`. Both forms are read.
 */
export type IssuedKey = { key: string } | { key: KeyRow; secret: string };

export function secretOf(issued: IssuedKey): string {
  return 'secret' in issued ? issued.secret : issued.key;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: { memberId: string; keyId: string | null; via: 'key' | 'session' | 'bootstrap' };
  action: string;
  target: { type: string; id: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface MeAnswer {
  member: MemberView;
  keys: KeyRow[];
  limits: { maxLiveKeys: number };
}

export interface SessionAnswer {
  sso: { enabled: boolean };
  signedIn: boolean;
  member?: { id: string; name: string; role: string };
  expiresAt?: string;
}

export const auditActions = [
  'member.create',
  'member.update',
  'member.disable',
  'member.enable',
  'member.suspend',
  'key.create',
  'key.update',
  'key.revoke',
  'key.rotate',
  'connection.create',
  'connection.update',
  'connection.enable',
  'connection.disable',
  'connection.test',
  'holder.set-holdings',
  'holder.issue-key',
  'settings.update',
  'session.sign-in',
  'session.refused',
  'session.sign-out',
] as const;

/** `POST /connections/:id/test`'s report (shared/admin/test-connection.ts), as `connection test` prints it. */
export interface ConnectionTestReport {
  connection: { id: string; provider: string; wire: string; baseUrl: string; upstream: string; enabled: boolean };
  ok: boolean;
  probes: {
    call: 'model-list' | 'generation';
    method: 'GET' | 'POST';
    url: string;
    model?: string;
    ok: boolean;
    status: number | null;
    latencyMs: number;
    failure?: { code: string; reason: string };
    models?: { count: number; ids: string[]; more: boolean };
  }[];
  notListedUpstream?: string[];
}

/** `GET /admin/v1/alerts`: an alert and where its delivery stands (shared/alerts/). */
export interface StoredAlertRow {
  event: {
    id: string;
    type: string;
    subject: Record<string, string | undefined>;
    threshold: number | null;
    used: number | null;
    allowance: number | null;
    day: string;
    at: string;
  };
  delivery: { state: string; attempts?: number };
}
