import { looksLikeCredential } from '../auth/credential-like.ts';

/**
 * Whether a query string carries a credential, by the parameter's name or by what its value looks like. The
 * gateway never reads a key from a URL, and a URL is logged, cached and shown far more widely than a header, so a
 * request that puts one there is refused (spec §4.1 rule 2, §5 rule 3) whatever the parameter is called.
 */

/** Names compared without case, `-` or `_`: `api_key`, `API-Key` and `apikey` are one name. */
const credentialNames = new Set([
  'key',
  'apikey',
  'xapikey',
  'xgoogapikey',
  'auth',
  'authorization',
  'token',
  'accesstoken',
  'apitoken',
  'authtoken',
  'bearer',
  'bearertoken',
  'idtoken',
  'refreshtoken',
  'sessiontoken',
  'secret',
  'clientsecret',
  'password',
  'passwd',
  'credential',
  'credentials',
  'signature',
  'sig',
  'xamzsecuritytoken',
]);
/** Parts of a name that only a credential's name holds. */
const credentialFragments = ['apikey', 'accesstoken', 'secret', 'password', 'authorization', 'credential'];

/** The name of the first parameter that carries a credential, or `undefined` when none does. */
export function queryCredentialParameter(query: URLSearchParams): string | undefined {
  for (const [name, value] of query) {
    const normalized = name.toLowerCase().replace(/[-_\s]/g, '');
    if (
      credentialNames.has(normalized) ||
      credentialFragments.some((fragment) => normalized.includes(fragment)) ||
      looksLikeCredential(name) ||
      looksLikeCredential(value)
    ) {
      return name;
    }
  }
  return undefined;
}
