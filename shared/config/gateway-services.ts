import { type HoldingsSource, memberRecordHoldings } from '../accounting/holdings-source.ts';
import { createRollupFolder, type RollupFolder } from '../accounting/rollup-folder.ts';
import { type AlertNotifier, createAlertNotifier } from '../alerts/alert-notifier.ts';
import type { Principal } from '../auth/principal.ts';
import { TtlCache } from '../cache/ttl-cache.ts';
import { logger } from '../observability/logger.ts';
import type { TelemetryPort } from '../observability/request-trace.ts';
import { createFileSecretStore } from '../secrets/file-secret-store.ts';
import type { SecretStore } from '../secrets/secret-store.ts';
import { createSecretsManagerStore } from '../secrets/secrets-manager-store.ts';
import type { ConnectionItem } from '../store/control-items.ts';
import type { GatewayStore } from '../store/store-port.ts';
import type { GatewayConfig } from './gateway-config.ts';

/** Everything a handler needs, built once per process from the parsed configuration. */
export interface GatewayServices {
  config: GatewayConfig;
  /** The store port; which engine is behind it is the host's choice (the stack: DynamoDB; `npm start`: SQLite). */
  store: GatewayStore;
  secrets: SecretStore;
  caches: {
    /** Authenticated principals by key hash. */
    principals: TtlCache<Principal>;
    connections: TtlCache<ConnectionItem[]>;
  };
  holdings: HoldingsSource;
  /** Takes each settled request into the rollups off the request path: in process on one machine, the stream on AWS. */
  rollupFolder: RollupFolder;
  /** Allowance and connection alerts: recorded off the answer's path, delivered by whoever the host configured. */
  alerts: AlertNotifier;
  /** OpenTelemetry traces and metrics, when configured (shared/observability/request-trace.ts); else undefined. */
  telemetry?: TelemetryPort | undefined;
  /** Work that outlives a response (settlement); hosts await it before an invocation or shutdown ends. */
  background: Set<Promise<unknown>>;
  now: () => Date;
  /** Tests only: jose's key-set cooldown (shared/sign-in/oidc-client.ts), shortened to see a key rotation at once. */
  signInTuning?: { jwksCooldownMs?: number } | undefined;
}

/** The services of one process around the store its host opened (hosts choose the engine; shared/ never does). */
export function createGatewayServices(
  config: GatewayConfig,
  store: GatewayStore,
  overrides: Partial<GatewayServices> = {},
): GatewayServices {
  const secrets =
    overrides.secrets ??
    (config.secretStore.kind === 'file'
      ? createFileSecretStore(config.secretStore.path)
      : createSecretsManagerStore({ region: config.region, cacheSeconds: Math.ceil(config.cacheTtlMs / 1000) }));
  const services: GatewayServices = {
    config,
    store,
    secrets,
    caches: {
      principals: new TtlCache(config.cacheTtlMs),
      connections: new TtlCache(Math.min(config.cacheTtlMs, 5_000)),
    },
    holdings: memberRecordHoldings,
    // The clock is read through the services, so a clock a test sets later is the one alerts see.
    alerts: overrides.alerts ?? alertNotifierFor(config, store, () => services.now()),
    rollupFolder:
      overrides.rollupFolder ??
      createRollupFolder({
        rollups: store.rollups,
        flushIntervalMs: config.rollupFlushMs,
        onError: (error) => logger.error('rollup flush failed; its requests wait for the next one', { error }),
      }),
    background: new Set(),
    now: () => new Date(),
    ...overrides,
  };
  return services;
}

/**
 * The alert notifier of a process. It only records alerts: the local host adds a deliverer for a webhook
 * (infra/local/gateway-host.ts), and on AWS the reaper puts the outbox on EventBridge.
 */
function alertNotifierFor(config: GatewayConfig, store: GatewayStore, now: () => Date): AlertNotifier {
  const { alerts } = config;
  return createAlertNotifier({
    store,
    now,
    settings: {
      thresholds: alerts.thresholds,
      deliverable: alerts.webhook !== undefined || alerts.eventBridge !== undefined,
    },
  });
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
