import { UsageError } from './cli-errors.ts';
import { isHttpUrl } from './flag-definitions.ts';

export const defaultGatewayUrl = 'http://127.0.0.1:8787';

export interface GatewayEnvironment {
  readonly baseUrl: URL;
  readonly adminKey: string;
}

/** Read once per run, after the command line is known to be valid, so flag mistakes are reported first. */
export function readGatewayEnvironment(env: Readonly<Record<string, string | undefined>>): GatewayEnvironment {
  const gatewayUrl = env['GATEWAY_URL']?.trim() || defaultGatewayUrl;
  if (!isHttpUrl(gatewayUrl))
    throw new UsageError(`GATEWAY_URL must be an http:// or https:// URL, got '${gatewayUrl}'`);
  const adminKey = env['GATEWAY_ADMIN_KEY']?.trim();
  if (!adminKey) throw new UsageError('GATEWAY_ADMIN_KEY is not set; export the admin key of the gateway first');
  return { baseUrl: new URL(gatewayUrl), adminKey };
}
