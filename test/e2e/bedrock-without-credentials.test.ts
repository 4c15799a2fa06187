import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeBedrock, startFakeBedrock } from '../support/fake-bedrock.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allRecords, memberAfterSettlement } from '../support/usage-records.ts';

/**
 * A host with no AWS identity at all (no variables, an empty profile file, instance metadata off): a Bedrock
 * connection without a key cannot sign. Each request is refused before anything is reserved — 502
 * `aws_credentials_unavailable` in the client's envelope, on InvokeModel and Converse alike — nothing reaches Bedrock,
 * and `connection test` says why. (A process holds its credentials once fetched, so this file has its own.)
 */
const nova = 'amazon.nova-lite-v1:0';
const claude = 'anthropic.claude-haiku-4-5-20251001-v1:0';
let bedrock: FakeBedrock;
let gateway: TestGateway;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'no-aws-identity-'));
  const empty = join(folder, 'empty');
  await writeFile(empty, '');
  for (const name of [
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_PROFILE',
    'AWS_WEB_IDENTITY_TOKEN_FILE',
    'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
    'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  ]) {
    vi.stubEnv(name, undefined);
  }
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', empty);
  vi.stubEnv('AWS_CONFIG_FILE', empty);
  // Nothing leaves loopback: the chain must not ask the instance metadata service.
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  bedrock = await startFakeBedrock();
  gateway = await startTestGateway();
  await gateway.admin.createConnection({
    provider: 'bedrock',
    wire: 'bedrock',
    region: 'us-east-1',
    baseUrl: bedrock.url,
    models: [nova, claude],
    apiKey: null,
  });
});
afterAll(async () => {
  await gateway?.close();
  await bedrock?.close();
  vi.unstubAllEnvs();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('a Bedrock connection on a host with no AWS identity', () => {
  it('refuses each request before reserving anything, in the client’s envelope', async () => {
    const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 100_000 });
    const chat = await postJson(gateway, key, '/v1/chat/completions', {
      model: `bedrock/${nova}`,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(chat.status).toBe(502);
    expect(await chat.json()).toMatchObject({ error: { code: 'aws_credentials_unavailable' } });
    const messages = await postJson(gateway, key, '/v1/messages', {
      model: `bedrock/${claude}`,
      max_tokens: 10,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(messages.status).toBe(502);
    expect(await messages.json()).toMatchObject({ type: 'error', error: { code: 'aws_credentials_unavailable' } });
    expect(bedrock.requests).toHaveLength(0);
    const member = await memberAfterSettlement(gateway.host.services, memberId);
    expect(member.tokenDays).toEqual({});
    expect(member.leases).toEqual({});
    expect(await allRecords(gateway.host.services)).toEqual([]);
  });

  it('says so in connection test, for a Converse model and an Anthropic one', async () => {
    const { connections } = await gateway.admin.call<{ connections: { id: string }[] }>('GET', '/connections');
    const id = connections[0]?.id ?? '';
    for (const model of [nova, claude]) {
      const report = await gateway.admin.call<{ ok: boolean; probes: { failure?: { code: string } }[] }>(
        'POST',
        `/connections/${id}/test`,
        { model },
      );
      expect(report.ok).toBe(false);
      expect(report.probes[0]?.failure?.code).toBe('aws_credentials_unavailable');
    }
    expect(bedrock.requests).toHaveLength(0);
  });
});
