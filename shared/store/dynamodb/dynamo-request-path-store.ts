import type { GatewayStore } from '../store-port.ts';
import { dynamoAdmission } from './dynamo-admission.ts';
import { recordAlert } from './dynamo-alerts.ts';
import { listConnections } from './dynamo-connections.ts';
import { findKeyBySecretHash, getKey } from './dynamo-keys.ts';
import { getMember } from './dynamo-members.ts';
import { closeRecord, getRecord, putRunningRecord } from './dynamo-records.ts';
import type { DynamoStore, DynamoStoreOptions } from './dynamo-store.ts';
import { createDocumentClient, type DynamoTables } from './dynamo-tables.ts';

/** A verb this function's store leaves out: its route never calls it (nor may it, by the function's grants). */
const notOnTheRequestPath = (verb: string) => async (): Promise<never> => {
  throw new Error(`${verb} is not part of the request path's store; the admin, usage and reaper functions have it`);
};

/**
 * The DynamoDB engine with only the verbs of the request path (authenticate, route, admit, record, settle, and
 * reaping in the way of an admission; never the rollups, which the stream consumer folds): what the inference, token-count and model-list functions bundle. Each
 * function carries the store code its route uses, and the bundles stay within their size budget; the verbs are
 * the same functions the full store (dynamo-store.ts) is made of.
 */
export function createRequestPathDynamoStore(options: DynamoStoreOptions): DynamoStore {
  const client = createDocumentClient(options);
  const tables: DynamoTables = { client, names: { ...options.tableNames } };
  const store: GatewayStore = {
    engine: 'dynamodb',
    members: {
      get: (id, readOptions) => getMember(tables, id, readOptions?.consistent),
      create: notOnTheRequestPath('members.create'),
      list: notOnTheRequestPath('members.list'),
      setStatus: notOnTheRequestPath('members.setStatus'),
      update: notOnTheRequestPath('members.update'),
      page: notOnTheRequestPath('members.page'),
      setHoldings: notOnTheRequestPath('members.setHoldings'),
      firstAdministrator: notOnTheRequestPath('members.firstAdministrator'),
      recordFirstAdministrator: notOnTheRequestPath('members.recordFirstAdministrator'),
    },
    keys: {
      get: (id, readOptions) => getKey(tables, id, readOptions?.consistent),
      findBySecretHash: (secretHash) => findKeyBySecretHash(tables, secretHash),
      create: notOnTheRequestPath('keys.create'),
      list: notOnTheRequestPath('keys.list'),
      revoke: notOnTheRequestPath('keys.revoke'),
      rotate: notOnTheRequestPath('keys.rotate'),
      update: notOnTheRequestPath('keys.update'),
      page: notOnTheRequestPath('keys.page'),
    },
    connections: {
      list: () => listConnections(tables),
      create: notOnTheRequestPath('connections.create'),
      setEnabled: notOnTheRequestPath('connections.setEnabled'),
      get: notOnTheRequestPath('connections.get'),
      update: notOnTheRequestPath('connections.update'),
    },
    admission: dynamoAdmission(tables),
    records: {
      putRunning: (record) => putRunningRecord(tables, record),
      close: (closed) => closeRecord(tables, closed),
      get: (locator) => getRecord(tables, locator),
      newest: notOnTheRequestPath('records.newest'),
    },
    // On AWS the records table's stream folds closed requests into the rollups: nothing on the request path adds.
    rollups: {
      add: notOnTheRequestPath('rollups.add'),
      read: notOnTheRequestPath('rollups.read'),
      rebuild: notOnTheRequestPath('rollups.rebuild'),
    },
    legacyUsage: {
      importRecords: notOnTheRequestPath('legacyUsage.importRecords'),
      list: notOnTheRequestPath('legacyUsage.list'),
    },
    earlierRecords: {
      progress: notOnTheRequestPath('earlierRecords.progress'),
      migrate: notOnTheRequestPath('earlierRecords.migrate'),
    },
    // The request path raises alerts; the reaper's pass delivers them (shared/alerts/deliver-alerts.ts).
    alerts: {
      record: (event, delivery) => recordAlert(tables, event, delivery),
      due: notOnTheRequestPath('alerts.due'),
      setDelivery: notOnTheRequestPath('alerts.setDelivery'),
      list: notOnTheRequestPath('alerts.list'),
    },
    audit: {
      append: notOnTheRequestPath('audit.append'),
      list: notOnTheRequestPath('audit.list'),
    },
    sessions: {
      create: notOnTheRequestPath('sessions.create'),
      find: notOnTheRequestPath('sessions.find'),
      remove: notOnTheRequestPath('sessions.remove'),
      begin: notOnTheRequestPath('sessions.begin'),
      take: notOnTheRequestPath('sessions.take'),
      grantCli: notOnTheRequestPath('sessions.grantCli'),
      takeCliGrant: notOnTheRequestPath('sessions.takeCliGrant'),
      beginDevice: notOnTheRequestPath('sessions.beginDevice'),
      takeDevice: notOnTheRequestPath('sessions.takeDevice'),
      personMember: notOnTheRequestPath('sessions.personMember'),
      linkPerson: notOnTheRequestPath('sessions.linkPerson'),
      unlinkPerson: notOnTheRequestPath('sessions.unlinkPerson'),
    },
    settings: {
      get: notOnTheRequestPath('settings.get'),
      update: notOnTheRequestPath('settings.update'),
    },
    close: async () => client.destroy(),
  };
  return { ...store, engine: 'dynamodb', client };
}
