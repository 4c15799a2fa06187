import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { SecretStore } from './secret-store.ts';

/** Provider credentials in Secrets Manager, read through Powertools with a short cache. */
export function createSecretsManagerStore(options: { region: string; cacheSeconds: number }): SecretStore {
  const client = new SecretsManagerClient({ region: options.region });
  return {
    async read(name) {
      const value = await getSecret(name, { maxAge: options.cacheSeconds });
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
