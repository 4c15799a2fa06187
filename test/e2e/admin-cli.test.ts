import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../cli/cli-harness.ts';
import type { FakeUpstream } from '../support/fake-upstream.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import { everythingStored } from '../support/store-contents.ts';
import type { TestGateway } from '../support/test-gateway.ts';

const fixture = useGatewayFixture();
let upstream: FakeUpstream;
let gateway: TestGateway;
const providerCredential = 'provider-credential-CANARY-7f3a';

beforeAll(() => {
  ({ upstream, gateway } = fixture);
});

const cli = (argv: string[], stdin?: string) =>
  runInProcess([...argv, '--json'], {
    env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey },
    fetch: globalThis.fetch,
    ...(stdin === undefined ? {} : { stdin }),
  });

describe('the admin CLI against the running gateway', () => {
  it('sets up a member, a key and a connection that an SDK can then use', async () => {
    const member = await cli(['member', 'create', '--name', 'Dana', '--daily-tokens', '100000', '--providers', 'acme']);
    expect(member.code).toBe(0);
    const memberId = JSON.parse(member.stdout).member.id as string;

    const key = await cli(['key', 'create', '--member', memberId, '--name', 'laptop']);
    expect(key.code).toBe(0);
    const issued = JSON.parse(key.stdout) as { id: string; key: string };
    expect(issued.key).toMatch(/^sk-gw-/);

    const connection = await cli(
      [
        'connection',
        'create',
        '--provider',
        'acme',
        '--wire',
        'openai-chat',
        '--base-url',
        `${upstream.url}/v1`,
        '--models',
        'acme-1',
        '--api-key-stdin',
      ],
      `${providerCredential}\n`,
    );
    expect(connection.code).toBe(0);
    expect(connection.stdout + connection.stderr).not.toContain(providerCredential);

    const client = openaiClient(gateway, issued.key);
    const answer = await client.chat.completions.create({
      model: 'acme/acme-1',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices[0]?.message.content).toBe('echo: hi');
    expect(upstream.requests.at(-1)?.headers.authorization).toBe(`Bearer ${providerCredential}`);

    const listed = await cli(['connection', 'list']);
    expect(listed.stdout).not.toContain(providerCredential);
    const keys = await cli(['key', 'list', '--member', memberId]);
    expect(JSON.parse(keys.stdout).keys).toHaveLength(1);
    expect(keys.stdout).not.toContain(issued.key);
  });

  it('keeps provider credentials out of the tables, in a 0600 secret file', async () => {
    const tableText = await everythingStored(gateway.host.services);
    expect(tableText).not.toContain(providerCredential);
    expect(tableText).not.toContain(gateway.adminKey);
    const secretFile = join(gateway.dataDir, 'secrets.json');
    expect((await stat(secretFile)).mode & 0o777).toBe(0o600);
    expect(await readFile(secretFile, 'utf8')).toContain(providerCredential);
  });

  it('refuses a key that is not an administrator', async () => {
    const memberId = await gateway.admin.createMember();
    const { key } = await gateway.admin.createKey(memberId);
    const run = await runInProcess(['member', 'list'], {
      env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: key },
      fetch: globalThis.fetch,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('admin_only');
  });
});
