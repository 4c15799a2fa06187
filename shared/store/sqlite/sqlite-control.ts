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
import { StoreConflictError, StoreNotFoundError } from '../store-errors.ts';
import type { ConnectionStore, KeyStore, MemberStore } from '../store-port.ts';
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
  region: string | null;
}

export function toMemberProfile(row: MemberRow): MemberProfile {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    status: row.status,
    policy: JSON.parse(row.policy) as Policy,
    createdAt: row.created_at,
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
    ...(row.region === null ? {} : { region: row.region }),
  };
}

const firstAdministratorSetting = 'first_administrator';

export function sqliteMembers(statements: Statements): MemberStore {
  const read = (id: string) => statements.get('SELECT * FROM members WHERE id = ?').get(id) as MemberRow | undefined;
  const insert = (row: MemberRow) =>
    statements
      .get(
        `INSERT INTO members (id, name, role, status, policy, created_at, holdings_usd, holdings_at)
         VALUES (@id, @name, @role, @status, @policy, @created_at, @holdings_usd, @holdings_at)`,
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

    async setStatus(id, status) {
      const row = statements.get('UPDATE members SET status = ? WHERE id = ? RETURNING *').get(status, id) as
        | MemberRow
        | undefined;
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
          });
        } else {
          statements.get('UPDATE members SET holdings_usd = ?, holdings_at = ? WHERE id = ?').run(usd, at, id);
        }
        return toMemberProfile(read(id) as MemberRow);
      });
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
        };
        statements
          .get(
            `INSERT INTO keys (id, member_id, name, state, generation, rotated_at, expires_at, policy, created_at, key_prefix)
             VALUES (@id, @member_id, @name, @state, @generation, @rotated_at, @expires_at, @policy, @created_at, @key_prefix)`,
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

    async revoke(id) {
      const row = statements.get("UPDATE keys SET state = 'revoked' WHERE id = ? RETURNING *").get(id) as
        | KeyRow
        | undefined;
      if (!row) throw new StoreNotFoundError('key', `No key has the id ${id}.`);
      return toKeyView(toKeyRecord(row));
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
          .get('UPDATE keys SET generation = generation + 1, rotated_at = ?, key_prefix = ? WHERE id = ? RETURNING *')
          .get(now.toISOString(), secret.keyPrefix, id) as KeyRow;
        insertSecret(secret.secretHash, id, row.member_id, row.generation);
        return toKeyRecord(row);
      });
    },
  };
}

/** The one way a connection row is written: by the store, and by the import of a dynalite data folder. */
export const insertConnection = `INSERT INTO connections
  (id, provider, wire, base_url, models, model_limits, upstream, enabled, created_at, secret_name, private_network, region)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

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
    connection.region ?? null,
  ];
}

export function sqliteConnections(statements: Statements): ConnectionStore {
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

    async setEnabled(id, enabled) {
      const row = statements
        .get('UPDATE connections SET enabled = ? WHERE id = ? RETURNING *')
        .get(enabled ? 1 : 0, id) as ConnectionRow | undefined;
      if (!row) throw new StoreNotFoundError('connection', `No connection has the id ${id}.`);
      return toConnectionView(toConnection(row));
    },
  };
}
