import {
  CreateSecretCommand,
  DeleteSecretCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretsManagerStore } from '../../shared/secrets/secrets-manager-store.ts';

/**
 * The Secrets Manager calls the admin function makes, which its role grants exactly (gateway-permissions.test.ts):
 * CreateSecret, PutSecretValue when the secret exists already, and DeleteSecret for a credential whose connection
 * could not be stored. Secrets Manager itself cannot run here, so its client is the one mock.
 */
const secretsManager = mockClient(SecretsManagerClient);
afterEach(() => secretsManager.reset());

describe('provider credentials in Secrets Manager', () => {
  it('creates a secret, or puts a new value into one that exists', async () => {
    const store = createSecretsManagerStore({ region: 'eu-west-1', cacheSeconds: 30 });
    secretsManager
      .on(CreateSecretCommand)
      .resolvesOnce({})
      .rejectsOnce(new ResourceExistsException({ message: 'exists', $metadata: {} }));
    secretsManager.on(PutSecretValueCommand).resolves({});
    await store.write('model-gateway/test/connections/con_1', 'one');
    await store.write('model-gateway/test/connections/con_1', 'two');
    expect(secretsManager.commandCalls(CreateSecretCommand)).toHaveLength(2);
    expect(secretsManager.commandCalls(PutSecretValueCommand)[0]?.args[0].input).toEqual({
      SecretId: 'model-gateway/test/connections/con_1',
      SecretString: 'two',
    });
  });

  it('deletes a secret without a recovery window', async () => {
    const store = createSecretsManagerStore({ region: 'eu-west-1', cacheSeconds: 30 });
    secretsManager.on(DeleteSecretCommand).resolves({});
    await store.remove('model-gateway/test/connections/con_2');
    expect(secretsManager.commandCalls(DeleteSecretCommand)[0]?.args[0].input).toEqual({
      SecretId: 'model-gateway/test/connections/con_2',
      ForceDeleteWithoutRecovery: true,
    });
  });
});
