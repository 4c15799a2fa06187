import { parseGatewayConfig } from '../shared/config/gateway-config.ts';
import { createGatewayServices, type GatewayServices } from '../shared/config/gateway-services.ts';

let processServices: GatewayServices | undefined;

/**
 * The services of this process, built on first use from the environment the stack sets. The local host passes
 * its own through the invocation context instead, so several gateways can live in one test process.
 */
export function servicesFromEnvironment(): GatewayServices {
  processServices ??= createGatewayServices(parseGatewayConfig(process.env));
  return processServices;
}
