import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';

const fixture = useGatewayFixture({
  connections: [
    { provider: 'acme', wire: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', models: ['acme-1', 'acme-2'] },
    { provider: 'acme', wire: 'anthropic-messages', baseUrl: 'http://127.0.0.1:9/v1', models: ['acme-2'] },
  ],
});
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});

async function modelIds(apiKey: string) {
  const client = new OpenAI({ apiKey, baseURL: gateway.baseURL, maxRetries: 0 });
  const page = await client.models.list();
  return page.data as unknown as { id: string; wires: string[] }[];
}

describe('GET /v1/models (spec §2.1)', () => {
  it('lists the catalog and connection models with the wires each can be called with', async () => {
    const { key } = await gateway.admin.createMemberWithKey();
    const models = await modelIds(key);
    expect(models.map((model) => model.id)).toEqual(
      expect.arrayContaining(['alpha/alpha-k3', 'beta/beta-4-31b', 'gamma/gamma', 'acme/acme-1', 'acme/acme-2']),
    );
    expect(models.find((model) => model.id === 'acme/acme-1')?.wires).toEqual(['openai-chat']);
    expect(models.find((model) => model.id === 'acme/acme-2')?.wires).toEqual(
      expect.arrayContaining(['openai-chat', 'anthropic-messages']),
    );
    expect(models.find((model) => model.id === 'beta/beta-4-31b')?.wires).toEqual(['openai-chat']);
  });

  it('filters by the intersection of member and key policy', async () => {
    const { key } = await gateway.admin.createMemberWithKey(
      { providers: ['acme', 'beta'] },
      { models: ['acme/acme-2', 'beta/beta-4-31b', 'alpha/alpha-k3'] },
    );
    expect((await modelIds(key)).map((model) => model.id).sort()).toEqual(['acme/acme-2', 'beta/beta-4-31b']);
  });

  it('needs a key', async () => {
    const response = await fetch(`${gateway.baseURL}/models`);
    expect(response.status).toBe(401);
  });
});
