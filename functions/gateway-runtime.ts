import { foldedByTheStream } from '../shared/accounting/rollup-folder.ts';
import { type GatewayConfig, parseGatewayConfig } from '../shared/config/gateway-config.ts';
import { createGatewayServices, type GatewayServices } from '../shared/config/gateway-services.ts';
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
