import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type HoldingsSource, memberRecordHoldings } from '../accounting/holdings-source.ts';
import type { Principal } from '../auth/principal.ts';
import { TtlCache } from '../cache/ttl-cache.ts';
import { createFileSecretStore } from '../secrets/file-secret-store.ts';
import type { SecretStore } from '../secrets/secret-store.ts';
import { createSecretsManagerStore } from '../secrets/secrets-manager-store.ts';
import type { ConnectionItem } from '../store/control-items.ts';
import type { ControlTable } from '../store/control-table.ts';
import { createDocumentClient } from '../store/dynamo-client.ts';
import type { LegacyUsageTable } from '../store/legacy-usage-store.ts';
import type { RollupTable } from '../store/rollup-store.ts';
import type { UsageTable } from '../store/usage-record-store.ts';
import type { GatewayConfig } from './gateway-config.ts';

/** Everything a handler needs, built once per process from the parsed configuration. */
export interface GatewayServices {
  config: GatewayConfig;
  client: DynamoDBDocumentClient;
  control: ControlTable;
  usage: UsageTable;
  rollups: RollupTable;
  /** Records of the earlier engine generation (0.1): only the admin import writes here, nothing totals them. */
  legacyUsage: LegacyUsageTable;
  secrets: SecretStore;
  caches: {
    /** Authenticated principals by key hash. */
    principals: TtlCache<Principal>;
    connections: TtlCache<ConnectionItem[]>;
  };
  holdings: HoldingsSource;
  /** Work that outlives a response (settlement); hosts await it before an invocation or shutdown ends. */
  background: Set<Promise<unknown>>;
  now: () => Date;
}

export function createGatewayServices(
  config: GatewayConfig,
  overrides: Partial<GatewayServices> = {},
): GatewayServices {
  const client = overrides.client ?? createDocumentClient({ region: config.region, endpoint: config.dynamoEndpoint });
  const secrets =
    overrides.secrets ??
    (config.secretStore.kind === 'file'
      ? createFileSecretStore(config.secretStore.path)
      : createSecretsManagerStore({ region: config.region, cacheSeconds: Math.ceil(config.cacheTtlMs / 1000) }));
  return {
    config,
    client,
    control: { client, tableName: config.tables.control },
    usage: { client, tableName: config.tables.usage },
    rollups: { client, tableName: config.tables.rollups },
    legacyUsage: { client, tableName: config.tables.legacyUsage },
    secrets,
    caches: {
      principals: new TtlCache(config.cacheTtlMs),
      connections: new TtlCache(Math.min(config.cacheTtlMs, 5_000)),
    },
    holdings: memberRecordHoldings,
    background: new Set(),
    now: () => new Date(),
    ...overrides,
  };
}

/** Settles in the background while keeping a handle, so a host can wait for it before it stops. */
export function trackBackground(services: GatewayServices, work: Promise<unknown>): Promise<unknown> {
  services.background.add(work);
  const forget = () => services.background.delete(work);
  work.then(forget, forget);
  return work;
}

export function secretNameForConnection(config: GatewayConfig, connectionId: string): string {
  return config.secretStore.kind === 'file'
    ? `connections/${connectionId}`
    : `${config.secretStore.prefix}/connections/${connectionId}`;
}
