import { readFile } from 'node:fs/promises';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import type { SqliteStore } from '../../shared/store/sqlite/sqlite-store.ts';
import { allRecords } from './usage-records.ts';

/**
 * Everything a store holds, as text, for tests that must prove something was never stored (a provider
 * credential, a key's secret, a prompt): every member with its admission state, key, connection, recent record
 * and 0.1 record the port can read, and on SQLite the database file and its write-ahead log byte for byte too.
 */
export async function everythingStored(services: GatewayServices): Promise<string> {
  const { store } = services;
  const members = await store.members.list();
  const parts: unknown[] = [
    members,
    await Promise.all(members.map((member) => store.admission.account(member.id))),
    await store.keys.list(),
    await store.connections.list(),
    await allRecords(services),
    await store.legacyUsage.list(),
  ];
  if (store.engine === 'sqlite') {
    const file = (store as SqliteStore).database.name;
    parts.push(await readFile(file, 'latin1'), await readFile(`${file}-wal`, 'latin1').catch(() => ''));
  }
  return JSON.stringify(parts);
}
