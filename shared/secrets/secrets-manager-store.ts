import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { TtlCache } from '../cache/ttl-cache.ts';
import type { SecretStore } from './secret-store.ts';

/**
 * Provider credentials in Secrets Manager, read with the SDK's own client and a short cache. (Powertools'
 * `getSecret` did the same with a second copy of Powertools' commons and a client of its own: about 6 KB of every
 * Lambda bundle, docs/bundles.md.) Concurrent reads of one secret share one call, as the store's other caches do.
 */
export function createSecretsManagerStore(options: { region: string; cacheSeconds: number }): SecretStore {
  const client = new SecretsManagerClient({ region: options.region });
  const cache = new TtlCache<string>(options.cacheSeconds * 1000, 1_000);
  return {
    async read(name) {
      const value = await cache.getOrLoad(name, async () => {
        const answer = await client.send(new GetSecretValueCommand({ SecretId: name }));
        return answer.SecretString;
      });
      if (typeof value !== 'string') throw new Error(`secret ${name} is not a string`);
      return value;
    },
    async write(name, value) {
      try {
        await client.send(new CreateSecretCommand({ Name: name, SecretString: value }));
      } catch (error) {
        if (!(error instanceof ResourceExistsException)) throw error;
        await client.send(new PutSecretValueCommand({ SecretId: name, SecretString: value }));
      }
    },
    async remove(name) {
      // Without a recovery window: the credential never belonged to a stored connection.
      await client.send(new DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true }));
    },
  };
}
