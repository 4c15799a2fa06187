import { parseGatewayConfig } from '../shared/config/gateway-config.ts';
import { createGatewayServices, type GatewayServices } from '../shared/config/gateway-services.ts';
import { dynamoStoreFromConfig } from '../shared/store/dynamodb/dynamo-store-from-config.ts';

let processServices: GatewayServices | undefined;

/**
 * The services of this process, built on first use from the environment the stack sets, always on the DynamoDB
 * engine (the SQLite engine is never bundled into a function). The local host passes its own services through
 * the invocation context instead, so several gateways can live in one test process.
 */
export function servicesFromEnvironment(): GatewayServices {
  if (!processServices) {
    const config = parseGatewayConfig(process.env);
    processServices = createGatewayServices(config, dynamoStoreFromConfig(config));
  }
  return processServices;
}
