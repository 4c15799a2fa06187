import type { AdmissionRefusal } from './admission.ts';

/**
 * The errors the store port raises, whichever engine is behind it. They say what happened in the domain's words;
 * the HTTP layer (shared/http/store-failures.ts) decides the status and code a caller sees.
 */
export abstract class StoreError extends Error {}

export type StoredEntity = 'member' | 'key' | 'connection' | 'holder' | 'settings';

/** The thing a write or read names does not exist. */
export class StoreNotFoundError extends StoreError {
  readonly entity: StoredEntity;

  constructor(entity: StoredEntity, message: string) {
    super(message);
    this.name = 'StoreNotFoundError';
    this.entity = entity;
  }
}

/**
 * A write that the stored state does not allow:
 * - `exists`: the id or secret is already taken;
 * - `key_changed`: the key was rotated or revoked at the same time, or is being rotated;
 * - `key_revoked`: a revoked key cannot be rotated.
 */
export type ConflictReason = 'exists' | 'key_changed' | 'key_revoked';

export class StoreConflictError extends StoreError {
  readonly reason: ConflictReason;

  constructor(reason: ConflictReason, message: string) {
    super(message);
    this.name = 'StoreConflictError';
    this.reason = reason;
  }
}

/**
 * A conditional update found the record at another version than the caller read: someone else changed it in
 * between. Nothing was written; `current` is the record as now stored, for the caller to show and reload.
 */
export class VersionConflictError<Current = unknown> extends StoreError {
  readonly entity: StoredEntity;
  readonly current: Current;

  constructor(entity: StoredEntity, current: Current) {
    super(`The ${entity} was changed by someone else since it was read; reload it and try again.`);
    this.name = 'VersionConflictError';
    this.entity = entity;
    this.current = current;
  }
}

/** A page's `after` position is not one this engine gave (a forged or another list's cursor). */
export class StoreCursorError extends StoreError {
  constructor() {
    super('The cursor is not one this list gave.');
    this.name = 'StoreCursorError';
  }
}

/**
 * The engine is throttling, busy or unreachable: the operation did not happen and may be tried again later
 * (DynamoDB's throttling errors, a SQLite database locked by another process past the busy time-out).
 */
export class StoreUnavailableError extends StoreError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * The store was closed by its host: nothing can be read or written through it any more. Work that outlived the
 * store (a rollup flush on its timer) has nothing left to do; it is not a fault of the store.
 */
export class StoreClosedError extends StoreError {
  constructor() {
    super('the store is closed');
    this.name = 'StoreClosedError';
  }
}

/** Admission refused the request, for the reason it carries. */
export class AdmissionRefusedError extends StoreError {
  readonly refusal: AdmissionRefusal;

  constructor(refusal: AdmissionRefusal) {
    super(`admission refused: ${refusal.reason}`);
    this.name = 'AdmissionRefusedError';
    this.refusal = refusal;
  }
}
