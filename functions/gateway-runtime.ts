import { foldedByTheStream } from '../shared/accounting/rollup-folder.ts';
import { type GatewayConfig, parseGatewayConfig } from '../shared/config/gateway-config.ts';
import { createGatewayServices, type GatewayServices } from '../shared/config/gateway-services.ts';
import { withSecretHeaders } from '../shared/config/telemetry-config.ts';
import { loadTelemetry, type TelemetryModule } from '../shared/observability/load-telemetry.ts';
import { logger } from '../shared/observability/logger.ts';
import type { GatewayStore } from '../shared/store/store-port.ts';

/** How a function opens its store: always the DynamoDB engine (SQLite is never bundled into a function). */
export type OpenStore = (config: GatewayConfig) => GatewayStore;

let processServices: GatewayServices | undefined;

/**
 * The services of this process, built on first use from the environment the stack sets, around the store the
 * function's entry opens (the request path's verbs, or all of them). The local host passes its own services
 * through the invocation context instead, so several gateways can live in one test process.
 */
export function servicesFromEnvironment(openStore: OpenStore): GatewayServices {
  if (!processServices) {
    const config = parseGatewayConfig(process.env);
    // The records table's stream folds settled requests into the rollups (functions/rollup-stream.ts).
    processServices = createGatewayServices(config, openStore(config), { rollupFolder: foldedByTheStream });
  }
  return processServices;
}

/**
 * Where a function finds the OpenTelemetry module: a file built beside its entry (infra/telemetry-bundle.ts), named
 * through a variable so the entry's own bundle does not take it in. Loaded only when telemetry is configured.
 */
const telemetryModuleFile = './otel-telemetry.mjs'; // infra/telemetry-bundle.ts builds it
let telemetryLoaded: Promise<void> | undefined;

/** Loads the process's telemetry once, before its first answer (a no-op when telemetry is off). */
export function telemetryReady(services: GatewayServices): Promise<void> {
  telemetryLoaded ??= (async () => {
    let settings = services.config.telemetry;
    // The collector's headers (an API key, often) come from Secrets Manager, not from the environment.
    if (settings?.headersSecret)
      settings = withSecretHeaders(settings, await services.secrets.read(settings.headersSecret));
    services.telemetry = await loadTelemetry(
      settings,
      () => import(new URL(telemetryModuleFile, import.meta.url).href) as Promise<TelemetryModule>,
    );
  })().catch((error: unknown) => {
    // Telemetry that cannot start must not stop the gateway: requests are answered untraced, and the log says why.
    logger.error('OpenTelemetry could not start; requests are not traced', { error });
  });
  return telemetryLoaded;
}
