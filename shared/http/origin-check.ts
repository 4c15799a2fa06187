import { createHash, timingSafeEqual } from 'node:crypto';
import type { SecretStore } from '../secrets/secret-store.ts';
import { GatewayError } from './gateway-error.ts';

/**
 * The header CloudFront adds to every request it sends a function, holding the deployment's origin secret. A
 * viewer cannot forge it: CloudFront replaces a header of the same name that a viewer sends.
 */
export const originSecretHeader = 'x-gateway-origin-secret';

/**
 * Only CloudFront may invoke the functions: a request without the origin secret came straight to a function URL
 * and is refused (403) before anything reads the store, so a guessed key costs nothing there. Every secret named
 * by `secretIds` is accepted (CloudFront sends one of them; during a rotation it moves to the other), and each is
 * compared in constant time, all of them every time, so the timing tells neither which nor how much matched.
 * Hosts without `secretIds` (the one-machine host) have no CloudFront in front and make no check.
 */
export async function checkOrigin(
  secretIds: readonly string[] | undefined,
  secrets: SecretStore,
  headers: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  if (!secretIds || secretIds.length === 0) return;
  let accepted: string[];
  try {
    accepted = await Promise.all(secretIds.map((id) => secrets.read(id)));
  } catch (error) {
    throw new GatewayError(503, 'origin_check_unavailable', 'The gateway cannot verify requests now; try again.', {
      cause: error,
      headers: { 'retry-after': '1' },
    });
  }
  const presented = digest(headers[originSecretHeader] ?? '');
  let matched = false;
  for (const value of accepted) {
    // Empty values never match: an unset slot must not accept a request that carries no header at all.
    const equal = timingSafeEqual(presented, digest(value)) && value.length > 0;
    matched = equal || matched;
  }
  if (!matched) {
    throw new GatewayError(
      403,
      'origin_refused',
      'Call the gateway at its address (the CloudFront distribution), not a function URL.',
    );
  }
}

/** Equal-length inputs for timingSafeEqual, whatever the lengths of the values compared. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
