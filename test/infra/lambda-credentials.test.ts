import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultProvider } from '../../infra/lambda-credentials.ts';

describe('the credential provider the Lambda bundles carry in place of the default chain', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('answers with the role credentials Lambda puts in the environment', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIAEXAMPLEKEYID');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'example-secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'example-session-token');
    await expect(defaultProvider()()).resolves.toMatchObject({
      accessKeyId: 'ASIAEXAMPLEKEYID',
      secretAccessKey: 'example-secret',
      sessionToken: 'example-session-token',
    });
  });

  it('refuses, rather than looking elsewhere, when the environment has none', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', undefined);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', undefined);
    await expect(defaultProvider()()).rejects.toThrow(/environment/i);
  });
});
