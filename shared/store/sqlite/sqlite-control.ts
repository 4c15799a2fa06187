import {
  type ConnectionItem,
  holderMemberId,
  type KeyRecord,
  type KeyView,
  type MemberProfile,
  type Policy,
  readDeclaredModelLimits,
  toConnectionView,
  toKeyView,
} from '../control-items.ts';
import { newId } from '../ids.ts';
import { StoreConflictError, StoreNotFoundError, VersionConflictError } from '../store-errors.ts';
import type { ConnectionStore, KeyStore, MemberStore } from '../store-port.ts';
import { keyPage, memberPage } from './sqlite-pages.ts';
import { isUniqueViolation, type Statements } from './sqlite-statements.ts';

interface MemberRow {
  id: string;
  name: string;
  role: MemberProfile['role'];
  status: MemberProfile['status'];
  policy: string;
  created_at: string;
  holdings_usd: number | null;
  holdings_at: string | null;
  version: number;
}

interface KeyRow {
  id: string;
  member_id: string;
  name: string;
  state: KeyRecord['state'];
  generation: number;
  rotated_at: string | null;
  expires_at: string | null;
  policy: string;
  created_at: string;
  key_prefix: string;
  version: number;
}

interface ConnectionRow {
  id: string;
  provider: string;
  wire: ConnectionItem['wire'];
  base_url: string;
  models: string;
  upstream: string;
  enabled: number;
  created_at: string;
  secret_name: string;
  private_network: number;
  model_limits: string;
  version: number;
}

export function toMemberProfile(row: MemberRow): MemberProfile {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    status: row.status,
    policy: JSON.parse(row.policy) as Policy,
    createdAt: row.created_at,
    version: row.version,
    ...(row.holdings_usd !== null && row.holdings_at !== null
      ? { holdings: { usd: row.holdings_usd, at: row.holdings_at } }
      : {}),
  };
}

function toKeyRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    memberId: row.member_id,
    name: row.name,
    state: row.state,
    generation: row.generation,
    expiresAt: row.expires_at,
    policy: JSON.parse(row.policy) as Policy,
    createdAt: row.created_at,
    rotatedAt: row.rotated_at,
    keyPrefix: row.key_prefix,
    version: row.version,
  };
}

function toConnection(row: ConnectionRow): ConnectionItem {
  return {
    id: row.id,
    provider: row.provider,
    wire: row.wire,
    baseUrl: row.base_url,
    models: JSON.parse(row.models) as string[],
    modelLimits: readDeclaredModelLimits(JSON.parse(row.model_limits)),
    upstream: row.upstream,
    privateNetwork: row.private_network === 1,
    enabled: row.enabled === 1,
    createdAt: row.created_at,
    secretName: row.secret_name,
    version: row.version,
  };
}

const firstAdministratorSetting = 'first_administrator';

/**
 * ONE statement: sets the given columns (undefined ones are left alone) and bumps the version, only where the row
 * is still at `expectedVersion`. Undefined when nothing matched: the row is absent or at another version.
 */
function conditionalUpdate(
  statements: Statements,
  table: 'members' | 'keys' | 'connections',
  id: string,
  expectedVersion: number,
  columns: Record<string, string | number | null | undefined>,
): unknown {
  const changed = Object.entries(columns).filter(([, value]) => value !== undefined);
  const assignments = [...changed.map(([column]) => `${column} = ?`), 'version = version + 1'].join(', ');
  return statements
    .get(`UPDATE ${table} SET ${assignments} WHERE id = ? AND version = ? RETURNING *`)
    .get(...changed.map(([, value]) => value), id, expectedVersion);
}

export function sqliteMembers(statements: Statements): MemberStore {
  const read = (id: string) => statements.get('SELECT * FROM members WHERE id = ?').get(id) as MemberRow | undefined;
  const insert = (row: MemberRow) =>
    statements
      .get(
        `INSERT INTO members (id, name, role, status, policy, created_at, holdings_usd, holdings_at, version)
         VALUES (@id, @name, @role, @status, @policy, @created_at, @holdings_usd, @holdings_at, @version)`,
      )
      .run(row);
  return {
    async create(input, now) {
      const row: MemberRow = {
        id: input.id ?? newId('mem'),
        name: input.name,
        role: input.role,
        status: 'active',
        policy: JSON.stringify(input.policy),
        created_at: now.toISOString(),
        holdings_usd: null,
        holdings_at: null,
        version: 1,
      };
      try {
        insert(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new StoreConflictError('exists', `A member has the id ${row.id} already.`);
        throw error;
      }
      return toMemberProfile(row);
    },

    async get(id) {
      const row = read(id);
      return row && toMemberProfile(row);
    },

    async list() {
      const rows = statements.get('SELECT * FROM members ORDER BY created_at, rowid').all() as MemberRow[];
      return rows.map(toMemberProfile);
    },

    async page(query) {
      const { rows, next } = memberPage<MemberRow>(statements, query);
      return { members: rows.map(toMemberProfile), next };
    },

    async setStatus(id, status) {
      const row = statements
        .get('UPDATE members SET status = ?, version = version + 1 WHERE id = ? RETURNING *')
        .get(status, id) as MemberRow | undefined;
      if (!row) throw new StoreNotFoundError('member', `No member has the id ${id}.`);
      return toMemberProfile(row);
    },

    async setHoldings(wallet, usd, now) {
      const id = holderMemberId(wallet);
      return statements.write(() => {
        const existing = read(id);
        // A wallet name must never take over an ordinary member.
        if (existing && existing.role !== 'holder') {
          throw new StoreNotFoundError('member', `"${wallet}" is not a holder wallet.`);
        }
        const at = now.toISOString();
        if (!existing) {
          insert({
            id,
            name: `holder ${wallet}`,
            role: 'holder',
            status: 'active',
            policy: '{}',
            created_at: at,
            holdings_usd: usd,
            holdings_at: at,
            version: 1,
          });
        } else {
          statements
            .get('UPDATE members SET holdings_usd = ?, holdings_at = ?, version = version + 1 WHERE id = ?')
            .run(usd, at, id);
        }
        return toMemberProfile(read(id) as MemberRow);
      });
    },

    async update(id, expectedVersion, changes) {
      const row = conditionalUpdate(statements, 'members', id, expectedVersion, {
        name: changes.name,
        role: changes.role,
        policy: changes.policy && JSON.stringify(changes.policy),
      }) as MemberRow | undefined;
      if (row) return toMemberProfile(row);
      const current = read(id);
      if (!current) throw new StoreNotFoundError('member', `No member has the id ${id}.`);
      throw new VersionConflictError('member', toMemberProfile(current));
    },

    async firstAdministrator() {
      const row = statements.get('SELECT value FROM settings WHERE name = ?').get(firstAdministratorSetting) as
        | { value: string }
        | undefined;
      return row?.value;
    },

    async recordFirstAdministrator(memberId) {
      statements
        .get('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
        .run(firstAdministratorSetting, memberId);
      const row = statements.get('SELECT value FROM settings WHERE name = ?').get(firstAdministratorSetting) as {
        value: string;
      };
      return row.value;
    },
  };
}

export function sqliteKeys(statements: Statements): KeyStore {
  const read = (id: string) => statements.get('SELECT * FROM keys WHERE id = ?').get(id) as KeyRow | undefined;
  const secretTaken = (secretHash: string) =>
    statements.get('SELECT 1 FROM key_secrets WHERE secret_hash = ?').get(secretHash) !== undefined;
  const insertSecret = (secretHash: string, keyId: string, memberId: string, generation: number) =>
    statements
      .get('INSERT INTO key_secrets (secret_hash, key_id, member_id, generation) VALUES (?, ?, ?, ?)')
      .run(secretHash, keyId, memberId, generation);
  return {
    /** One transaction: the key, its first secret, or nothing at all. */
    async create(input, now) {
      return statements.write(() => {
        if (!statements.get('SELECT 1 FROM members WHERE id = ?').get(input.memberId)) {
          throw new StoreNotFoundError('member', `No member has the id ${input.memberId}.`);
        }
        if (secretTaken(input.secretHash))
          throw new StoreConflictError('exists', 'That secret belongs to a key already.');
        const row: KeyRow = {
          id: newId('key'),
          member_id: input.memberId,
          name: input.name,
          state: 'active',
          generation: 1,
          rotated_at: null,
          expires_at: input.expiresAt,
          policy: JSON.stringify(input.policy),
          created_at: now.toISOString(),
          key_prefix: input.keyPrefix,
          version: 1,
        };
        statements
          .get(
            `INSERT INTO keys (id, member_id, name, state, generation, rotated_at, expires_at, policy, created_at, key_prefix, version)
             VALUES (@id, @member_id, @name, @state, @generation, @rotated_at, @expires_at, @policy, @created_at, @key_prefix, @version)`,
          )
          .run(row);
        insertSecret(input.secretHash, row.id, input.memberId, 1);
        return toKeyRecord(row);
      });
    },

    async get(id) {
      const row = read(id);
      return row && toKeyRecord(row);
    },

    async findBySecretHash(secretHash) {
      const row = statements
        .get('SELECT key_id, member_id, generation FROM key_secrets WHERE secret_hash = ?')
        .get(secretHash) as { key_id: string; member_id: string; generation: number } | undefined;
      return row && { keyId: row.key_id, memberId: row.member_id, generation: row.generation };
    },

    async list(memberId): Promise<KeyView[]> {
      const rows = (
        memberId === undefined
          ? statements.get('SELECT * FROM keys ORDER BY created_at, rowid').all()
          : statements.get('SELECT * FROM keys WHERE member_id = ? ORDER BY created_at, rowid').all(memberId)
      ) as KeyRow[];
      return rows.map((row) => toKeyView(toKeyRecord(row)));
    },

    async page(query) {
      const { rows, next } = keyPage<KeyRow>(statements, query);
      return { keys: rows.map((row) => toKeyView(toKeyRecord(row))), next };
    },

    async revoke(id) {
      const row = statements
        .get("UPDATE keys SET state = 'revoked', version = version + 1 WHERE id = ? RETURNING *")
        .get(id) as KeyRow | undefined;
      if (!row) throw new StoreNotFoundError('key', `No key has the id ${id}.`);
      return toKeyView(toKeyRecord(row));
    },

    async update(id, expectedVersion, changes) {
      const row = conditionalUpdate(statements, 'keys', id, expectedVersion, {
        name: changes.name,
        policy: changes.policy && JSON.stringify(changes.policy),
        expires_at: changes.expiresAt,
      }) as KeyRow | undefined;
      if (row) return toKeyView(toKeyRecord(row));
      const current = read(id);
      if (!current) throw new StoreNotFoundError('key', `No key has the id ${id}.`);
      throw new VersionConflictError('key', toKeyView(toKeyRecord(current)));
    },

    /** One transaction: the next generation and its secret, so the old secret is refused from the commit on. */
    async rotate(id, secret, fromGeneration, now) {
      return statements.write(() => {
        const key = read(id);
        if (!key) throw new StoreNotFoundError('key', `No key has the id ${id}.`);
        if (key.state !== 'active') throw new StoreConflictError('key_revoked', 'A revoked key cannot be rotated.');
        if (key.generation !== fromGeneration) {
          throw new StoreConflictError('key_changed', 'The key was rotated at the same time; read it again.');
        }
        if (secretTaken(secret.secretHash))
          throw new StoreConflictError('exists', 'That secret belongs to a key already.');
        const row = statements
          .get(`UPDATE keys SET generation = generation + 1, rotated_at = ?, key_prefix = ?, version = version + 1
             WHERE id = ? RETURNING *`)
          .get(now.toISOString(), secret.keyPrefix, id) as KeyRow;
        insertSecret(secret.secretHash, id, row.member_id, row.generation);
        return toKeyRecord(row);
      });
    },
  };
}

/** The one way a connection row is written: by the store, and by the import of a dynalite data folder. */
export const insertConnection = `INSERT INTO connections
  (id, provider, wire, base_url, models, model_limits, upstream, enabled, created_at, secret_name, private_network)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

export function connectionRowValues(connection: ConnectionItem): unknown[] {
  return [
    connection.id,
    connection.provider,
    connection.wire,
    connection.baseUrl,
    JSON.stringify(connection.models),
    JSON.stringify(connection.modelLimits),
    connection.upstream,
    connection.enabled ? 1 : 0,
    connection.createdAt,
    connection.secretName,
    connection.privateNetwork ? 1 : 0,
  ];
}

export function sqliteConnections(statements: Statements): ConnectionStore {
  const read = (id: string) =>
    statements.get('SELECT * FROM connections WHERE id = ?').get(id) as ConnectionRow | undefined;
  return {
    async create(connection) {
      try {
        statements.get(insertConnection).run(...connectionRowValues(connection));
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new StoreConflictError('exists', `A connection has the id ${connection.id} already.`);
        }
        throw error;
      }
    },

    async list() {
      const rows = statements.get('SELECT * FROM connections ORDER BY created_at, id').all() as ConnectionRow[];
      return rows.map(toConnection);
    },

    async get(id) {
      const row = read(id);
      return row && toConnection(row);
    },

    async update(id, expectedVersion, changes) {
      const row = conditionalUpdate(statements, 'connections', id, expectedVersion, {
        models: changes.models && JSON.stringify(changes.models),
        model_limits: changes.modelLimits && JSON.stringify(changes.modelLimits),
        base_url: changes.baseUrl,
        enabled: changes.enabled === undefined ? undefined : changes.enabled ? 1 : 0,
        secret_name: changes.secretName,
      }) as ConnectionRow | undefined;
      if (row) return toConnection(row);
      const current = read(id);
      if (!current) throw new StoreNotFoundError('connection', `No connection has the id ${id}.`);
      throw new VersionConflictError('connection', toConnectionView(toConnection(current)));
    },

    async setEnabled(id, enabled) {
      const row = statements
        .get('UPDATE connections SET enabled = ?, version = version + 1 WHERE id = ? RETURNING *')
        .get(enabled ? 1 : 0, id) as ConnectionRow | undefined;
      if (!row) throw new StoreNotFoundError('connection', `No connection has the id ${id}.`);
      return toConnectionView(toConnection(row));
    },
  };
}
