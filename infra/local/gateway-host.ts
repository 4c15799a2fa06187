import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { reapAllExpiredLeases, settleLeftRunning } from '../../shared/accounting/reap-all.ts';
import { bootstrapAdministrator } from '../../shared/admin/bootstrap-admin.ts';
import { startAlertDeliveryLoop } from '../../shared/alerts/alert-delivery-loop.ts';
import { webhookSink } from '../../shared/alerts/webhook-sink.ts';
import { parseGatewayConfig } from '../../shared/config/gateway-config.ts';
import { createGatewayServices, type GatewayServices, trackBackground } from '../../shared/config/gateway-services.ts';
import { loadTelemetry } from '../../shared/observability/load-telemetry.ts';
import { logger } from '../../shared/observability/logger.ts';
import { migrateEarlierRecords, migrationBudgetMs } from '../../shared/usage/migrate-earlier-records.ts';
import { type DataFolderLock, lockDataFolder } from './data-folder-lock.ts';
import { loadLocalFunctions } from './local-functions.ts';
import { createLocalServer } from './local-server.ts';
import { openLocalStore } from './open-local-store.ts';

export interface GatewayHostOptions {
  host: string;
  port: number;
  dataDir: string;
  adminKey: string | undefined;
  /** Further settings, as the environment would give them (GATEWAY_UPSTREAM_TIMEOUT_MS and the like). */
  environment?: Record<string, string | undefined>;
  /** How often the reaper looks for requests that died before settling; 0 turns it off. */
  reaperIntervalMs?: number;
}

export interface GatewayHost {
  url: string;
  services: GatewayServices;
  adminMemberId: string;
  /** The administrator key created by this start, shown once; undefined when the store already had one. */
  issuedAdminKey: string | undefined;
  /** Which store the host opened, and what an upgrade imported into it, for the start message. */
  storeNotes: string[];
  /** The HTTP server, for a program that embeds the host and watches its connections. */
  server: Server;
  close(): Promise<void>;
}

/** Starts the whole gateway on one machine: the store (`GATEWAY_STORE`), first administrator, HTTP server, reaper. */
export async function startGatewayHost(options: GatewayHostOptions): Promise<GatewayHost> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const config = parseGatewayConfig({
    ...options.environment,
    AWS_REGION: options.environment?.AWS_REGION ?? 'local',
    GATEWAY_SECRET_STORE: 'file',
    GATEWAY_SECRET_FILE: join(dataDir, 'secrets.json'),
    // One machine: its own loopback and private network are where local models and proxies live.
    GATEWAY_PRIVATE_UPSTREAMS: options.environment?.['GATEWAY_PRIVATE_UPSTREAMS'] ?? 'allowed',
  });
  // The embedded stores live in the data folder, and one process owns it; a DynamoDB endpoint is shared instead.
  const embeddedStore = config.storeEngine === 'sqlite' || config.dynamoEndpoint === undefined;
  const lock: DataFolderLock | undefined = embeddedStore ? await lockDataFolder(dataDir) : undefined;
  let local: Awaited<ReturnType<typeof openLocalStore>>;
  try {
    local = await openLocalStore(config, dataDir);
  } catch (error) {
    await lock?.release();
    throw error;
  }
  const services = createGatewayServices(config, local.store);
  // OpenTelemetry only when configured: otherwise the module is never loaded.
  services.telemetry = await loadTelemetry(
    config.telemetry,
    () => import('../../shared/observability/otel/otel-telemetry.ts'),
  );
  const notes = [...local.notes];
  let server: Server;
  let bootstrap: Awaited<ReturnType<typeof bootstrapAdministrator>>;
  try {
    if (lock) notes.push(...(await recoverFromEarlierProcess(services, lock)));
    bootstrap = await bootstrapAdministrator(services, options.adminKey);
    server = createLocalServer(services, await loadLocalFunctions());
    await listen(server, options.port, options.host);
  } catch (error) {
    await local.close();
    await lock?.release();
    throw error;
  }
  const { port } = server.address() as AddressInfo;

  // On one machine alerts go to the webhook from this process; those a previous run did not deliver go out now.
  const webhook = config.alerts.webhook;
  const alertDelivery =
    webhook &&
    startAlertDeliveryLoop({
      alerts: services.store.alerts,
      sink: webhookSink({ ...webhook, attemptTimeoutMs: 10_000 }),
      now: () => services.now(),
      policy: config.alerts.retry,
    });
  if (alertDelivery) {
    services.alerts.onRecorded(alertDelivery.deliverSoon);
    alertDelivery.deliverSoon();
  }
  const reaperIntervalMs = options.reaperIntervalMs ?? 60_000;
  // As the stack schedules it on AWS: the earlier layout's history carried in a pass at a time until complete, one
  // pass at a time, each as short as an admin request's, and awaited by `close` like any background work.
  let migrationDone = false;
  let migrationRunning = false;
  const migrationPass = async () => {
    if (migrationDone || migrationRunning) return;
    migrationRunning = true;
    try {
      const pass = migrateEarlierRecords(services, migrationBudgetMs.adminRequest);
      trackBackground(services, pass);
      migrationDone = (await pass).state === 'complete';
    } finally {
      migrationRunning = false;
    }
  };
  const reaper =
    reaperIntervalMs > 0
      ? setInterval(() => {
          reapAllExpiredLeases(services).catch((error: unknown) => logger.error('reaper failed', { error }));
          migrationPass().catch((error: unknown) => logger.error('earlier records migration failed', { error }));
          // Keys about to expire are announced (the notifier scans at most once an hour).
          void services.alerts.scanExpiringKeys();
          alertDelivery?.deliverSoon();
        }, reaperIntervalMs)
      : undefined;
  reaper?.unref();

  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    services,
    adminMemberId: bootstrap.adminMemberId,
    issuedAdminKey: bootstrap.issuedKey,
    storeNotes: notes,
    server,
    async close() {
      if (reaper) clearInterval(reaper);
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeIdleConnections();
        // Open streams get a moment to finish, then are cut; their settlement still runs below.
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      await Promise.allSettled([...services.background]);
      // An alert delivery under way is stopped; what it had not delivered stays pending for the next start.
      await alertDelivery?.close();
      // What settled last is still waiting in the rollup folder: into the rollups before the store closes.
      await services.rollupFolder.close();
      await services.telemetry?.shutdown();
      await local.close();
      await lock?.release();
    },
  };
}

/**
 * What the process before this one left running on the data folder this one now owns: settled now, as the reaper
 * settles a request whose process died, so no member's concurrency stays taken by leases of a dead process.
 */
async function recoverFromEarlierProcess(services: GatewayServices, lock: DataFolderLock): Promise<string[]> {
  const settled = await settleLeftRunning(services);
  const notes = [`data folder owned by this process (pid ${process.pid})`];
  if (lock.staleOwnerPid !== undefined) {
    notes.push(`the previous gateway (pid ${lock.staleOwnerPid}) stopped without closing; its lock was taken over`);
  }
  if (settled === 0) notes.push('no request was left running by an earlier process');
  else {
    notes.push(
      `settled ${settled} request${settled === 1 ? '' : 's'} the previous process left running ` +
        `(failed, charged ${settled === 1 ? 'its reservation' : 'their reservations'}); ` +
        `${settled} lease${settled === 1 ? '' : 's'} freed`,
    );
  }
  return notes;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
}
