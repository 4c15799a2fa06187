import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedStore } from '../../infra/local/embedded-store.ts';
import { parseGatewayConfig } from '../../shared/config/gateway-config.ts';
import { createGatewayServices, type GatewayServices } from '../../shared/config/gateway-services.ts';
import { tableEnvironment } from '../../shared/store/table-definitions.ts';
import { heldClock, pinnedInstant } from './pinned-clock.ts';

/**
 * The real store engine (dynalite, in-process) with the gateway's tables, and services bound to it; the calendar
 * clock is held on this run's pinned instant, if it has one (pinned-clock.ts).
 */
export async function startTestStore(
  environment: Record<string, string> = {},
): Promise<{ services: GatewayServices; close(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-store-'));
  const store = await startEmbeddedStore(dataDir);
  const services = createGatewayServices(
    parseGatewayConfig({
      ...environment,
      ...tableEnvironment(store.tableNames),
      GATEWAY_DYNAMODB_ENDPOINT: store.endpoint,
      AWS_REGION: 'local',
      GATEWAY_SECRET_STORE: 'file',
      GATEWAY_SECRET_FILE: join(dataDir, 'secrets.json'),
    }),
  );
  const instant = pinnedInstant();
  if (instant !== undefined) services.now = heldClock(instant);
  return {
    services,
    async close() {
      services.client.destroy();
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
