import { loadOnce } from '../async-work/load-once.ts';
import { TtlCache } from '../cache/ttl-cache.ts';
import type { SecretStore } from './secret-store.ts';

type SecretsManagerSdk = typeof import('@aws-sdk/client-secrets-manager');

/**
 * Provider credentials in Secrets Manager, read with the SDK's own client and a short cache. (Powertools'
 * `getSecret` did the same with a second copy of Powertools' commons and a client of its own: about 6 KB of every
 * Lambda bundle, docs/bundles.md.) Concurrent reads of one secret share one call, as the store's other caches do.
 *
 * The client is loaded at the first secret read or write, not at init: the admin function needs it only to save or
 * test a connection, and an inference function's first read is a network call that dwarfs the import (docs/bundles.md).
 */
export function createSecretsManagerStore(options: { region: string; cacheSeconds: number }): SecretStore {
  const connect = loadOnce(async () => {
    const sdk: SecretsManagerSdk = await import('@aws-sdk/client-secrets-manager');
    return { sdk, client: new sdk.SecretsManagerClient({ region: options.region }) };
  });
  const cache = new TtlCache<string>(options.cacheSeconds * 1000, 1_000);
  return {
    async read(name) {
      const value = await cache.getOrLoad(name, async () => {
        const { sdk, client } = await connect();
        const answer = await client.send(new sdk.GetSecretValueCommand({ SecretId: name }));
        return answer.SecretString;
      });
      if (typeof value !== 'string') throw new Error(`secret ${name} is not a string`);
      return value;
    },
    async write(name, value) {
      const { sdk, client } = await connect();
      try {
        await client.send(new sdk.CreateSecretCommand({ Name: name, SecretString: value }));
      } catch (error) {
        if (!(error instanceof sdk.ResourceExistsException)) throw error;
        await client.send(new sdk.PutSecretValueCommand({ SecretId: name, SecretString: value }));
      }
    },
    async remove(name) {
      // Without a recovery window: the credential never belonged to a stored connection.
      const { sdk, client } = await connect();
      await client.send(new sdk.DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true }));
    },
  };
}
