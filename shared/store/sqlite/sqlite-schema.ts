import type Database from 'better-sqlite3';

/**
 * The schema of the SQLite engine, as migrations: migration N brings a database from `user_version` N-1 to N, in
 * one transaction, so a later version of the gateway upgrades a database written by an earlier one at its first
 * start. Never edit a migration that has shipped; add the next one.
 *
 * Columns are plain SQL types, readable with the `sqlite3` shell; JSON columns (policy, models) hold JSON text.
 * Times are ISO-8601 UTC strings (they sort as they compare), lease expiries epoch milliseconds.
 */
const migrations: readonly string[] = [
  // 1: the first schema.
  `
  CREATE TABLE members (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'member', 'holder')),
    status TEXT NOT NULL CHECK (status IN ('active', 'disabled', 'suspended')),
    policy TEXT NOT NULL,
    created_at TEXT NOT NULL,
    holdings_usd REAL,
    holdings_at TEXT
  );
  CREATE TABLE keys (
    id TEXT PRIMARY KEY,
    member_id TEXT NOT NULL REFERENCES members (id),
    name TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('active', 'revoked')),
    generation INTEGER NOT NULL,
    rotated_at TEXT,
    expires_at TEXT,
    policy TEXT NOT NULL,
    created_at TEXT NOT NULL,
    key_prefix TEXT NOT NULL
  );
  CREATE INDEX keys_by_member ON keys (member_id, created_at);
  -- The SHA-256 of each secret a key has had; older generations stay so their refusal can say "rotated".
  CREATE TABLE key_secrets (
    secret_hash TEXT PRIMARY KEY,
    key_id TEXT NOT NULL REFERENCES keys (id),
    member_id TEXT NOT NULL,
    generation INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE connections (
    id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    wire TEXT NOT NULL,
    base_url TEXT NOT NULL,
    models TEXT NOT NULL,
    upstream TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    secret_name TEXT NOT NULL
  );
  CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

  -- Admission state: what one admission transaction reads and writes.
  CREATE TABLE token_days (
    member_id TEXT NOT NULL,
    day TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    PRIMARY KEY (member_id, day)
  ) WITHOUT ROWID;
  CREATE TABLE holder_days (
    member_id TEXT NOT NULL,
    day TEXT NOT NULL,
    requests INTEGER NOT NULL,
    PRIMARY KEY (member_id, day)
  ) WITHOUT ROWID;
  CREATE TABLE member_minutes (
    member_id TEXT NOT NULL,
    minute TEXT NOT NULL,
    requests INTEGER NOT NULL,
    PRIMARY KEY (member_id, minute)
  ) WITHOUT ROWID;
  CREATE TABLE key_minutes (
    key_id TEXT NOT NULL,
    minute TEXT NOT NULL,
    requests INTEGER NOT NULL,
    PRIMARY KEY (key_id, minute)
  ) WITHOUT ROWID;
  CREATE TABLE leases (
    request_id TEXT PRIMARY KEY,
    member_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    reserved INTEGER NOT NULL,
    day TEXT NOT NULL
  );
  CREATE INDEX leases_by_member ON leases (member_id);
  CREATE INDEX leases_by_key ON leases (key_id);
  CREATE INDEX leases_by_expiry ON leases (expires_at);

  -- One record per admitted request: metadata only, never a prompt or an answer.
  CREATE TABLE records (
    id TEXT PRIMARY KEY,
    member_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    upstream TEXT NOT NULL,
    wire TEXT NOT NULL,
    stream INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    day TEXT NOT NULL,
    reserved INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('running', 'completed', 'failed')),
    status INTEGER,
    ended_at TEXT,
    duration_ms INTEGER,
    input_tokens INTEGER,
    cached_input_tokens INTEGER,
    output_tokens INTEGER,
    charge INTEGER,
    source TEXT CHECK (source IN ('measured', 'conservative'))
  );
  CREATE INDEX records_by_time ON records (started_at);
  CREATE INDEX records_by_member_time ON records (member_id, started_at);
  CREATE INDEX records_running ON records (started_at) WHERE state = 'running';

  -- Hourly counters per member, key, upstream, provider and model; days are sums of their hours.
  CREATE TABLE rollups (
    hour TEXT NOT NULL,
    member_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    upstream TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    requests INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    charge INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    input_tokens_reported INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    cached_input_tokens_reported INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    output_tokens_reported INTEGER NOT NULL,
    PRIMARY KEY (hour, member_id, key_id, upstream, provider, model)
  ) WITHOUT ROWID;
  CREATE INDEX rollups_by_member ON rollups (member_id, hour);

  -- Usage records of the earlier engine generation (0.1), apart from gateway records (spec §9).
  CREATE TABLE legacy_usage (
    id TEXT PRIMARY KEY,
    generation TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    day TEXT NOT NULL,
    request_id TEXT,
    key_id TEXT,
    member_id TEXT,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT,
    input_tokens INTEGER,
    cached_input_tokens INTEGER,
    output_tokens INTEGER,
    duration_ms INTEGER,
    raw TEXT NOT NULL,
    imported_at TEXT NOT NULL
  );
  CREATE INDEX legacy_usage_by_time ON legacy_usage (timestamp);
  `,
  // 2: a connection marked by an administrator as reaching a private network (shared/net/upstream-address.ts).
  `
  ALTER TABLE connections ADD COLUMN private_network INTEGER NOT NULL DEFAULT 0;
  `,
  // 3: the context window and largest output a connection declares for its models (JSON: [{id, contextWindow,
  // maxOutput}]); a connection stored before declares none.
  `
  ALTER TABLE connections ADD COLUMN model_limits TEXT NOT NULL DEFAULT '[]';
  `,
  // 4: leases keyed by request alone (no rowid beside the key), with one index that counts both a member's and a
  // key's: each admission and settlement writes two pages of the lease table instead of five. The table only
  // holds requests in flight, so the reaper's scan for expired ones needs no index of its own.
  `
  CREATE TABLE leases_by_request (
    request_id TEXT PRIMARY KEY,
    member_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    reserved INTEGER NOT NULL,
    day TEXT NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO leases_by_request SELECT request_id, member_id, key_id, expires_at, reserved, day FROM leases;
  DROP TABLE leases;
  ALTER TABLE leases_by_request RENAME TO leases;
  CREATE INDEX leases_by_member_key ON leases (member_id, key_id);
  `,
  // 5: the alerts outbox (shared/alerts/): one row per alert id, listed newest first, and found by when its pending
  // delivery is next due (the partial index holds only pending alerts).
  `
  CREATE TABLE alerts (
    id TEXT PRIMARY KEY,
    at TEXT NOT NULL,
    type TEXT NOT NULL,
    event TEXT NOT NULL,
    delivery TEXT NOT NULL,
    due_at TEXT
  ) WITHOUT ROWID;
  CREATE INDEX alerts_by_time ON alerts (at, id);
  CREATE INDEX alerts_due ON alerts (due_at) WHERE due_at IS NOT NULL;
  `,
  // 6: a version on every record an administrator edits (1 for the records stored before), which each update is
  // conditional on; and the audit log of administrative changes, newest first by (at, id).
  `
  ALTER TABLE members ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE keys ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE connections ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  CREATE INDEX keys_by_time ON keys (created_at, id);
  CREATE INDEX members_by_time ON members (created_at, id);
  CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    at TEXT NOT NULL,
    actor_member_id TEXT NOT NULL,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    entry TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX audit_by_time ON audit_log (at, id);
  CREATE INDEX audit_by_actor ON audit_log (actor_member_id, at, id);
  CREATE INDEX audit_by_target ON audit_log (target_id, at, id);
  `,
  // 7: sign-in's items (shared/store/sign-in-items.ts): sessions, sign-ins under way, CLI grants, person links.
  `
  CREATE TABLE sign_in_items (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    value TEXT NOT NULL,
    expires_at INTEGER,
    PRIMARY KEY (kind, id)
  ) WITHOUT ROWID;
  `,
];

export const schemaVersion = migrations.length;

/**
 * Brings the database to the current schema (or, for the upgrade tests, to an earlier `version`); refuses one
 * written by a newer gateway.
 */
export function migrate(database: Database.Database, version = schemaVersion): void {
  const current = database.pragma('user_version', { simple: true }) as number;
  if (current > schemaVersion) {
    throw new Error(
      `the database has schema version ${current}, newer than this gateway's ${schemaVersion}: upgrade the gateway`,
    );
  }
  for (let next = current + 1; next <= version; next++) {
    database
      .transaction(() => {
        database.exec(migrations[next - 1] as string);
        database.pragma(`user_version = ${next}`);
      })
      .immediate();
  }
}
