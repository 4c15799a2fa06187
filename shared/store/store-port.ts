import type { AlertDelivery, StoredAlert } from '../alerts/alert-delivery-state.ts';
import type { AlertEvent } from '../alerts/alert-event.ts';
import type { Deadline } from '../clock/monotonic-deadline.ts';
import type { AdmissionRequest, AdmissionResult, ExpiredLease } from './admission.ts';
import type { AuditEntry, AuditPage, AuditQuery } from './audit-entries.ts';
import type {
  ConnectionChanges,
  ConnectionItem,
  ConnectionView,
  KeyChanges,
  KeyRecord,
  KeyView,
  MemberAccount,
  MemberChanges,
  MemberProfile,
  MemberStatus,
  NewKey,
  NewMember,
  Policy,
  SecretLookup,
  StoredSecret,
} from './control-items.ts';
import type { CliGrant, PendingDeviceSignIn, PendingSignIn, SessionRecord } from './sign-in-items.ts';
import type {
  ClosedRequest,
  LegacyImportResult,
  LegacyUsageRecord,
  RecordLocator,
  RecordOutcome,
  RollupRow,
  RunningRecord,
  StoredLegacyUsageRecord,
  UsageRecord,
} from './usage-records.ts';

/**
 * The store port: every verb the domain needs of its data, in the domain's words. Two engines implement it, each
 * in its own idiom — `sqlite` (shared/store/sqlite/, one machine) and `dynamodb` (shared/store/dynamodb/, AWS,
 * dynalite or any endpoint) — and one contract suite (test/store/store-contract.test.ts) holds both to it. Verbs
 * return domain results and raise the errors of store-errors.ts, never an engine's own.
 */
export interface GatewayStore {
  readonly engine: StoreEngineName;
  readonly members: MemberStore;
  readonly keys: KeyStore;
  readonly connections: ConnectionStore;
  readonly admission: AdmissionStore;
  readonly records: UsageRecordStore;
  readonly rollups: RollupStore;
  readonly legacyUsage: LegacyUsageStore;
  readonly earlierRecords: EarlierRecordsStore;
  readonly alerts: AlertStore;
  readonly audit: AuditStore;
  readonly sessions: SessionStore;
  readonly settings: SettingsStore;
  /** Releases what the engine holds (connections, file handles); the store is unusable afterwards. */
  close(): Promise<void>;
}

export const storeEngineNames = ['sqlite', 'dynamodb'] as const;
export type StoreEngineName = (typeof storeEngineNames)[number];

export interface ReadOptions {
  /**
   * Reflect every write that returned before this read (a strongly consistent read on DynamoDB; SQLite always
   * does). Without it a read may be a moment stale, which cached authentication accepts because admission
   * re-checks what must be current.
   */
  consistent?: boolean;
}

export interface MemberStore {
  /** Raises `StoreConflictError('exists')` when the chosen id is taken. */
  create(member: NewMember, now: Date): Promise<MemberProfile>;
  get(id: string, options?: ReadOptions): Promise<MemberProfile | undefined>;
  /** Every member, oldest first. */
  list(): Promise<MemberProfile[]>;
  /**
   * One page of members, filtered by a case-insensitive part of the name and by status; `after` is the `next` of
   * the page before. SQLite pages oldest first; DynamoDB in id order (its keys-only index is sorted by id).
   */
  page(query: MemberPageQuery): Promise<{ members: MemberProfile[]; next: string | undefined }>;
  /** Takes effect on the very next admission. Raises `StoreNotFoundError('member')`. */
  setStatus(id: string, status: MemberStatus): Promise<MemberProfile>;
  /**
   * ONE conditional write: applies `changes` only if the member is still at `expectedVersion`, and bumps it.
   * A policy change takes effect on the very next admission (`MemberAccount.policyFloors`). Raises
   * `StoreNotFoundError('member')` and `VersionConflictError` carrying the member as now stored.
   */
  update(id: string, expectedVersion: number, changes: MemberChanges): Promise<MemberProfile>;
  /**
   * Records a holder wallet's holdings, creating the wallet's member on first use and keeping its counters after.
   * Raises `StoreNotFoundError('member')` when the wallet's id belongs to a team member.
   */
  setHoldings(wallet: string, usd: number, now: Date): Promise<MemberProfile>;
  /** The first administrator's member id, once recorded. */
  firstAdministrator(): Promise<string | undefined>;
  /** Records the first administrator unless one is recorded; returns the one recorded (the first write wins). */
  recordFirstAdministrator(memberId: string): Promise<string>;
}

export interface KeyStore {
  /**
   * A key usable from the moment this returns. Raises `StoreNotFoundError('member')` for an unknown member and
   * `StoreConflictError('exists')` when the secret's hash is already stored (nothing is written then).
   */
  create(key: NewKey, now: Date): Promise<KeyRecord>;
  get(id: string, options?: ReadOptions): Promise<KeyRecord | undefined>;
  findBySecretHash(secretHash: string): Promise<SecretLookup | undefined>;
  /** The keys of one member, or of everyone; oldest first. */
  list(memberId?: string): Promise<KeyView[]>;
  /** One page of keys (of one member, or everyone's), filtered as `KeyPageQuery` says. */
  page(query: KeyPageQuery): Promise<{ keys: KeyView[]; next: string | undefined }>;
  /** Refused by the very next admission. Raises `StoreNotFoundError('key')`. */
  revoke(id: string): Promise<KeyView>;
  /**
   * Gives the key a new secret, the generation after `fromGeneration` (the one the caller read); the old secret is
   * refused from then on, and its lookup stays so the refusal can say "rotated". Raises `StoreNotFoundError('key')`,
   * `StoreConflictError('key_revoked')`, and `StoreConflictError('key_changed')` when the key is no longer at
   * `fromGeneration` (another rotation got there first: two callers never both get a secret).
   */
  rotate(id: string, secret: StoredSecret, fromGeneration: number, now: Date): Promise<KeyRecord>;
  /**
   * ONE conditional write on the key's version, as `MemberStore.update`; a change of policy or expiry takes effect
   * on the very next admission. Raises `StoreNotFoundError('key')` and `VersionConflictError` with the key.
   */
  update(id: string, expectedVersion: number, changes: KeyChanges): Promise<KeyView>;
}

export interface ConnectionStore {
  /** Raises `StoreConflictError('exists')` when the id is taken. */
  create(connection: ConnectionItem): Promise<void>;
  /** Every connection, oldest first. */
  list(): Promise<ConnectionItem[]>;
  get(id: string): Promise<ConnectionItem | undefined>;
  /** Raises `StoreNotFoundError('connection')`. */
  setEnabled(id: string, enabled: boolean): Promise<ConnectionView>;
  /**
   * ONE conditional write on the connection's version. Raises `StoreNotFoundError('connection')` and
   * `VersionConflictError` carrying the connection as now stored (as a view: never its secret's name).
   */
  update(id: string, expectedVersion: number, changes: ConnectionChanges): Promise<ConnectionItem>;
}

/** What one settlement did. */
export interface SettlementResult {
  /** This call released the lease (the once-only gate) and turned the reservation into the charge. */
  released: boolean;
  /** This call closed the record; false when it was closed already (or the lease was not there to release). */
  closed: boolean;
}

export interface AdmissionStore {
  /**
   * Admits atomically or refuses with the exact reason: checks the member is active and the key neither revoked
   * nor rotated, reserves the tokens against the day's allowance, counts the minute's requests (member and key),
   * takes the concurrency leases and counts the holder's day — all or nothing, exact under any concurrency.
   */
  admit(request: AdmissionRequest): Promise<AdmissionResult>;
  /**
   * Settles a request once: releases its lease, moves the day's tokens from the reservation to the charge and
   * closes its record. The lease is the gate: a second settlement (a retry, the reaper racing the request) changes
   * nothing. Rollups are not part of it (`RollupStore.add`), so an engine may fold them in later, in batches.
   */
  settle(closed: ClosedRequest): Promise<SettlementResult>;
  /**
   * Today's allowance and live keys of each member named (those that exist): tokens used (settled) and reserved (in
   * flight) on `day`, and keys neither revoked nor expired at `now`. For lists: a bounded read per page.
   */
  today(memberIds: readonly string[], day: string, now: Date): Promise<Map<string, MemberToday>>;
  /**
   * The tokens charged to a member on `day`: the day's count less what requests still in flight hold reserved in
   * it (`MemberToday.used`); undefined when the store holds no admission state for the member. One bounded read:
   * the allowance alerts ask it after every settlement, where reading the whole `account` cost more than the rest
   * of the settlement.
   */
  chargedToday(memberId: string, day: string): Promise<number | undefined>;
  /** A member's admission state, for inspection and for saying why an admission was refused. */
  account(memberId: string): Promise<MemberAccount | undefined>;
  /** Every lease, of any member, that expired by `now` (epoch ms): requests whose process died. */
  expiredLeases(now: number): Promise<ExpiredLease[]>;
  /**
   * Drops per-minute counters of past minutes and per-day counts older than a week, which nothing reads any more;
   * returns how many it dropped (an engine may drop a long-idle member's over several calls).
   */
  pruneStale(now: Date): Promise<number>;
}

/** A bounded read of records, always by `startedAt` range. */
export interface RecordQuery {
  /** Inclusive `startedAt` bounds, as stored (ISO with milliseconds). */
  from: string;
  to: string;
  /** One member's records; absent reads the whole team's. */
  memberId?: string | undefined;
  keyId?: string | undefined;
  /** Providers to keep; empty or absent keeps all. */
  providers?: readonly string[] | undefined;
  /** Only running, or only closed (completed or failed) records; absent: both. */
  state?: 'running' | 'closed' | undefined;
  /** At most this many, newest first; absent: every matching record. */
  limit?: number | undefined;
}

export interface RecordPage {
  /** Newest first. */
  records: UsageRecord[];
  /** More records matched than the limit let through. */
  more: boolean;
}

export interface UsageRecordStore {
  /** The record that shows a request as running; a no-op when the request's record exists already. */
  putRunning(record: RunningRecord): Promise<void>;
  /**
   * Closes a record once; writes the whole record when the running one never arrived. Returns false when it was
   * closed already. Settlement closes records itself (`AdmissionStore.settle`); this is for whoever writes records
   * without a lease (imports, fixtures).
   */
  close(closed: ClosedRequest): Promise<boolean>;
  get(locator: RecordLocator): Promise<UsageRecord | undefined>;
  newest(query: RecordQuery): Promise<RecordPage>;
}

/** Whole UTC hours or whole UTC days, first and last inclusive. */
export type RollupQuery = {
  memberId?: string | undefined;
  keyId?: string | undefined;
} & (
  | { by: 'hour' /** `YYYY-MM-DDTHH` */; first: string; last: string }
  | { by: 'day' /** `YYYY-MM-DD` */; first: string; last: string }
);

/** What a rebuild of rollups did. */
export interface RollupRebuild {
  days: number;
  /** Closed records folded. */
  records: number;
  /** Hourly rows written. */
  rows: number;
}

export interface RollupStore {
  /**
   * Adds closed requests to the rollups, folded (one write per hour and identity, however many requests); concurrent
   * adds never lose an update. Not idempotent: the caller hands each request over once (the in-process folder, fed
   * by settlement's once-only gate). On AWS the records table's stream folds instead (dynamo-rollup-stream.ts).
   */
  add(closed: readonly ClosedRequest[]): Promise<void>;
  /** The rollup rows of the range (by day: one row per day and identity), in no particular order. */
  read(query: RollupQuery): Promise<RollupRow[]>;
  /**
   * Rebuilds the rollups of whole UTC days (`YYYY-MM-DD`, inclusive) from their closed records, replacing what they
   * held. Meant for days whose requests have all settled (see shared/usage/rebuild-rollups.ts).
   */
  rebuild(days: { first: string; last: string }): Promise<RollupRebuild>;
}

export interface LegacyUsageStore {
  /** Stores the records that are not stored yet; a record already there is skipped and left untouched. */
  importRecords(records: readonly LegacyUsageRecord[], importedAt: Date): Promise<LegacyImportResult>;
  /** Every stored 0.1 record (for export and upgrades; the gateway itself never totals them). */
  list(): Promise<StoredLegacyUsageRecord[]>;
}

/**
 * Where the migration of the earlier layout's usage history stands (`usage migrate-earlier-records`). Its steps:
 * `scan` reads the earlier records table page by page and carries each closed record into the current layout;
 * `sweep` reads the last days of it again, once the earlier code can no longer be running anything, for what closed
 * since or was written late; `fold` adds the carried records to the rollups, one record partition at a time; then
 * `done`.
 */
export interface EarlierRecordsMigration {
  /** `carrying`: call again; `waiting`: nothing to do until `waitingUntil`; `complete`: every earlier record is in. */
  state: 'carrying' | 'waiting' | 'complete';
  step: 'scan' | 'sweep' | 'fold' | 'done';
  /** When the first call began (the gateway's calendar); null before any. */
  startedAt: string | null;
  completedAt: string | null;
  /** While waiting: when the earlier code's last requests will have ended (or died). */
  waitingUntil: string | null;
  /** Requests of the earlier code still running when the last scan or sweep read them. */
  earlierRunning: number;
  /** Earlier records the scan read (each once). */
  scannedRecords: number;
  /**
   * Items of the earlier table the scan could not read as records (no id, member or start time to key them by):
   * left in the earlier table, and worth a look before it is deleted.
   */
  unreadableRecords: number;
  /**
   * Records the finished steps wrote into the current layout: a measure of progress, not a total (a record written
   * by a step that died is found there by the next one, and counted by neither).
   */
  carriedRecords: number;
  /** UTC days that hold carried records, and their record partitions whose carried records are in the rollups. */
  days: number;
  foldedPartitions: number;
  partitionsToFold: number;
  /**
   * Carried records counted into the rollups, each partition once: once `complete`, exactly the earlier records now
   * in the current layout; and, of those, requests whose process had died, closed as the reaper closes them.
   */
  foldedRecords: number;
  foldedDied: number;
}

export interface EarlierRecordsMigrationOptions {
  /** The gateway's calendar clock at the call. */
  now: Date;
  /** No new step starts once this has passed (a step is a page of records or one record partition's fold). */
  deadline: Deadline;
  /**
   * A lease's length: an earlier request running longer than this belongs to a process that died; and the earlier
   * code may still run requests this long after the migration began, so the sweep waits that long.
   */
  leaseTtlMs: number;
  /** How a request whose process died is closed: as the reaper closes it. */
  closeDied(record: RunningRecord, now: Date): RecordOutcome;
  /** Earlier records read per step; small in tests, so that a migration takes many steps. */
  pageSize?: number;
}

/**
 * The usage history of an earlier storage layout, carried into the current one. Resumable and idempotent: every
 * step records where it got to with a conditional write, a record carried twice is stored and counted once, and
 * calls may overlap or die half-way. An engine without an earlier layout (SQLite imports the earlier data folder
 * whole at its first start) reports `complete` at once.
 */
export interface EarlierRecordsStore {
  /** Where the migration stands at `now` (the gateway's calendar), without moving it. */
  progress(now: Date): Promise<EarlierRecordsMigration>;
  /**
   * Moves it on, step after step, until it completes, must wait, or the deadline passes; at least one step unless
   * it is complete or waiting.
   */
  migrate(options: EarlierRecordsMigrationOptions): Promise<EarlierRecordsMigration>;
}

/** Where a newest-first page of alerts ends: the page after it starts below this alert. */
export interface AlertPosition {
  at: string;
  id: string;
}

export interface AlertPage {
  alerts: StoredAlert[];
  /** The last alert of the page when more follow it; null on the last page. */
  next: AlertPosition | null;
}

/**
 * The alerts outbox (shared/alerts/): each alert id is recorded once, however many requests or instances raise it at
 * the same moment, and a deliverer moves each recorded alert from pending to delivered or failed.
 */
export interface AlertStore {
  /**
   * Records the alert unless its id is recorded already (one conditional write); true when this call recorded it,
   * and only then is it delivered.
   */
  record(event: AlertEvent, delivery: AlertDelivery): Promise<boolean>;
  /** Alerts whose delivery is pending and due by `now` (ISO), oldest first, at most `limit`. */
  due(now: string, limit: number): Promise<StoredAlert[]>;
  /** Records how a delivery attempt went. Raises nothing for an unknown id (the alert list is not a ledger). */
  setDelivery(id: string, delivery: AlertDelivery): Promise<void>;
  /** Newest first, starting below `after`; `type` keeps one type. */
  list(query: { limit: number; after?: AlertPosition | undefined; type?: string | undefined }): Promise<AlertPage>;
}

/** The audit log of administrative changes (shared/admin/audit-log.ts writes it). */
export interface AuditStore {
  /** Stores one entry; writing the same entry twice (a retry) stores it once. */
  append(entry: AuditEntry): Promise<void>;
  /** Newest first, filtered by actor, action and target (all that are given must match). */
  list(query: AuditQuery): Promise<AuditPage>;
}

export interface MemberPageQuery {
  limit: number;
  after?: string | undefined;
  /** A case-insensitive part of the name. */
  name?: string | undefined;
  status?: MemberStatus | undefined;
}

export interface KeyPageQuery {
  limit: number;
  after?: string | undefined;
  memberId?: string | undefined;
  name?: string | undefined;
  /** `expired`: not revoked, but past its expiry at `now`; `active`: neither. */
  state?: 'active' | 'revoked' | 'expired' | undefined;
  now: Date;
}

export interface MemberToday {
  used: number;
  reserved: number;
  liveKeys: number;
}

/**
 * Sign-in's items (shared/store/sign-in-items.ts): the gateway's sessions, sign-ins under way, one-time CLI grants
 * and which member each person of the provider stands for. Both engines build these verbs with `sessionStoreOver`.
 */
export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  /** The session with this id hash, unless it has expired by `now`. */
  find(idHash: string, now: Date): Promise<SessionRecord | undefined>;
  remove(idHash: string): Promise<void>;
  begin(pending: PendingSignIn): Promise<void>;
  /** The sign-in begun with this state, removed as it is read: a state is good for one callback. */
  take(stateHash: string, now: Date): Promise<PendingSignIn | undefined>;
  grantCli(grant: CliGrant): Promise<void>;
  takeCliGrant(codeHash: string, now: Date): Promise<CliGrant | undefined>;
  beginDevice(pending: PendingDeviceSignIn): Promise<void>;
  /** The device sign-in with this handle hash, removed as it is read (one poller at a time puts it back). */
  takeDevice(handleHash: string, now: Date): Promise<PendingDeviceSignIn | undefined>;
  /** The member a provider's subject stands for, once linked. */
  personMember(subject: string): Promise<string | undefined>;
  /** Links a subject to a member unless it is linked already; returns the member it is linked to (the first wins). */
  linkPerson(subject: string, memberId: string): Promise<string>;
  unlinkPerson(subject: string): Promise<void>;
}

/** The team's settings: the default policy of members who sign in by SSO. Versioned like every edited record. */
export interface TeamSettings {
  version: number;
  defaultPolicy: Policy;
}

export interface SettingsStore {
  /** Version 1 with an empty policy until first changed. */
  get(): Promise<TeamSettings>;
  /** ONE conditional write on the version; raises `VersionConflictError` carrying the settings as stored. */
  update(expectedVersion: number, defaultPolicy: Policy): Promise<TeamSettings>;
}
