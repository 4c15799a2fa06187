import { UsageError } from './cli-errors.ts';
import { isHttpUrl } from './flag-definitions.ts';

export const defaultGatewayUrl = 'http://127.0.0.1:8787';

export interface GatewayEnvironment {
  readonly baseUrl: URL;
  /** The admin key, or absent when the commands go with the session `login` stored. */
  readonly adminKey?: string;
  readonly sessionId?: string;
}

export function readGatewayUrl(env: Readonly<Record<string, string | undefined>>): URL {
  const gatewayUrl = env['GATEWAY_URL']?.trim() || defaultGatewayUrl;
  if (!isHttpUrl(gatewayUrl))
    throw new UsageError(`GATEWAY_URL must be an http:// or https:// URL, got '${gatewayUrl}'`);
  return new URL(gatewayUrl);
}

/**
 * Read once per run, after the command line is known to be valid, so flag mistakes are reported first. The admin
 * key wins when it is set (what the shell says now over what was stored); otherwise the session `login` stored for
 * this gateway, while it lasts.
 */
export function readGatewayEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  storedSession?: { session: string },
): GatewayEnvironment {
  const baseUrl = readGatewayUrl(env);
  const adminKey = env['GATEWAY_ADMIN_KEY']?.trim();
  if (adminKey) return { baseUrl, adminKey };
  if (storedSession) return { baseUrl, sessionId: storedSession.session };
  throw new UsageError('GATEWAY_ADMIN_KEY is not set; export the admin key of the gateway first');
}
