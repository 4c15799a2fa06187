import type { GatewayServices } from '../config/gateway-services.ts';
import type { ConnectionItem } from '../store/control-items.ts';
import type { UpstreamTarget } from '../wires/upstream-wire-format.ts';

/**
 * What a wire needs of a connection to call it: its base URL, its credential from the secret store — none for a
 * connection that holds none (a Bedrock connection signing as the host's AWS identity: no secret name) — and the
 * region a Bedrock connection signs for.
 */
export async function upstreamTargetOf(services: GatewayServices, connection: ConnectionItem): Promise<UpstreamTarget> {
  const credential = connection.secretName === '' ? '' : await services.secrets.read(connection.secretName);
  return {
    baseUrl: connection.baseUrl,
    credential,
    ...(connection.region === undefined ? {} : { region: connection.region }),
  };
}
