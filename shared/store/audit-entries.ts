/**
 * The audit log's entries as the domain sees them, whichever engine keeps them: who changed what, when, and the
 * changed fields before and after. Never a key secret, a secret's hash or a credential: `auditSnapshot` keeps only
 * the fields an administrator edits and drops every secret-bearing one, whatever record it is handed.
 */
export const auditVias = ['key', 'session', 'bootstrap'] as const;
export type AuditVia = (typeof auditVias)[number];

export interface AuditActor {
  memberId: string;
  keyId: string | null;
  via: AuditVia;
}

export const auditTargetTypes = ['member', 'key', 'connection', 'holder', 'settings', 'session'] as const;
export type AuditTargetType = (typeof auditTargetTypes)[number];

/** A change as its route describes it; the store adds the id, the time and the actor. */
export interface AuditChange {
  action: string;
  target: { type: AuditTargetType; id: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface AuditEntry extends AuditChange {
  id: string;
  /** ISO time of the change. */
  at: string;
  actor: AuditActor;
}

export interface AuditQuery {
  /** At most this many, newest first. */
  limit: number;
  /** Entries strictly older than this position (the last one of the page before). */
  after?: { at: string; id: string } | undefined;
  actor?: string | undefined;
  action?: string | undefined;
  target?: string | undefined;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** More matched than the limit let through. */
  more: boolean;
}

/** Fields no audit entry ever holds, whichever record they come from. */
const secretFields = new Set(['secretName', 'secretHash', 'key', 'apiKey', 'secret', 'generation', 'pk', 'kind']);

/** A record's fields as the audit log keeps them: everything but what could lead to a secret. */
export function auditSnapshot(record: object | null | undefined): Record<string, unknown> | null {
  if (!record) return null;
  return Object.fromEntries(Object.entries(record).filter(([field]) => !secretFields.has(field)));
}

/**
 * The fields that differ between two snapshots, before and after; `version` always, so an entry names the versions
 * it moved between. Used for updates, where the rest of the record did not change.
 */
export function changedFields(
  before: object,
  after: object,
): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const old = auditSnapshot(before) ?? {};
  const now = auditSnapshot(after) ?? {};
  const fields = new Set([...Object.keys(old), ...Object.keys(now)]);
  const changed = [...fields].filter(
    (field) => field === 'version' || JSON.stringify(old[field]) !== JSON.stringify(now[field]),
  );
  return {
    before: Object.fromEntries(changed.map((field) => [field, old[field] ?? null])),
    after: Object.fromEntries(changed.map((field) => [field, now[field] ?? null])),
  };
}
