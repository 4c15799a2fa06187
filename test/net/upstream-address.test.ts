import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkBaseUrl } from '../../shared/net/base-url.ts';
import {
  addressClass,
  guardedLookup,
  UpstreamAddressRefused,
  type UpstreamNetwork,
} from '../../shared/net/upstream-address.ts';
import { requestUpstream } from '../../shared/net/upstream-transport.ts';

describe('address classes', () => {
  it.each([
    ['169.254.169.254', 'never'],
    ['169.254.0.1', 'never'],
    ['100.100.100.200', 'never'],
    ['168.63.129.16', 'never'],
    ['0.0.0.0', 'never'],
    ['224.0.0.1', 'never'],
    ['255.255.255.255', 'never'],
    ['fe80::1', 'never'],
    ['fd00:ec2::254', 'never'],
    ['::', 'never'],
    ['ff02::1', 'never'],
    ['::ffff:169.254.169.254', 'never'],
    ['::ffff:a9fe:a9fe', 'never'],
    ['64:ff9b::a9fe:a9fe', 'never'],
    ['64:ff9b::169.254.169.254', 'never'],
    // IPv4-compatible (deprecated) spellings carry the address inside them too.
    ['::169.254.169.254', 'never'],
    ['::a9fe:a9fe', 'never'],
    ['::0.0.0.2', 'never'],
    ['not an address', 'never'],
    ['127.0.0.1', 'private'],
    ['127.1.2.3', 'private'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:127.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'private'],
    ['::127.0.0.1', 'private'],
    ['::a00:1', 'private'],
    // A site's own NAT64 translator reaches its IPv4 network, whichever address it embeds.
    ['64:ff9b:1::a9fe:a9fe', 'private'],
    ['64:ff9b:1:2::808:808', 'private'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['2606:4700::1111', 'public'],
    ['64:ff9b::808:808', 'public'],
    ['::808:808', 'public'],
  ] as const)('%s is %s', (address, expected) => {
    expect(addressClass(address)).toBe(expected);
  });
});

describe('checkBaseUrl', () => {
  const refusedEverywhere = [
    ['ftp://api.example.com/v1', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['not a url', /not a URL/],
    ['https://user:pass@api.example.com/v1', /user name or password/],
    ['https://user@api.example.com/v1', /user name or password/],
    ['https://api.example.com/v1?key=SECRET', /query/],
    ['https://api.example.com/v1?', /query/],
    ['https://api.example.com/v1#part', /fragment/],
    ['http://169.254.169.254/latest/meta-data', /link-local, metadata/],
    ['http://[fe80::1]/', /link-local, metadata/],
    ['http://[fd00:ec2::254]/', /link-local, metadata/],
    ['http://100.100.100.200/', /link-local, metadata/],
    ['http://metadata.google.internal/computeMetadata/v1', /metadata service/],
    ['http://METADATA.GOOGLE.INTERNAL./', /metadata service/],
    ['http://[::ffff:169.254.169.254]/', /link-local, metadata/],
    ['http://[::169.254.169.254]/', /link-local, metadata/],
    // Other spellings of 169.254.169.254 that a URL parser turns into it.
    ['http://0251.0376.0251.0376/', /link-local, metadata/],
    ['http://2852039166/', /link-local, metadata/],
    ['http://0xa9fea9fe/', /link-local, metadata/],
  ] as const;

  it.each(refusedEverywhere)('refuses %s, whatever the network', (url, problem) => {
    for (const network of ['public-only', 'private-allowed'] as UpstreamNetwork[]) {
      const check = checkBaseUrl(url, network);
      expect(check.ok, `${url} on ${network}`).toBe(false);
      if (!check.ok) expect(check.problem).toMatch(problem);
    }
  });

  it.each(['http://127.0.0.1:8080/v1', 'http://10.0.0.5/v1', 'http://[::1]:9000/', 'http://192.168.1.20/v1beta'])(
    'refuses the private %s unless the network allows it',
    (url) => {
      const check = checkBaseUrl(url, 'public-only');
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.problem).toMatch(/mark the connection as reaching a private network/);
      expect(checkBaseUrl(url, 'private-allowed').ok).toBe(true);
    },
  );

  it.each(['https://api.openai.com/v1', 'https://generativelanguage.googleapis.com/v1beta', 'http://8.8.8.8/v1'])(
    'accepts %s anywhere',
    (url) => {
      expect(checkBaseUrl(url, 'public-only')).toMatchObject({ ok: true });
    },
  );

  it('leaves a host name to be judged by its DNS answers when a call connects', () => {
    // `localhost` is a name: its text proves nothing; guardedLookup refuses it where private addresses are.
    expect(checkBaseUrl('http://localhost:8080/v1', 'public-only').ok).toBe(true);
  });
});

describe('guardedLookup', () => {
  const lookupWith = (network: UpstreamNetwork, answers: { address: string; family: number }[]) =>
    guardedLookup(network, async () => answers);
  const run = (lookup: LookupFunction, options: { all?: boolean; family?: number } = {}) =>
    new Promise<{ error: Error | null; address: unknown; family: number | undefined }>((resolve) => {
      lookup('upstream.example', options as never, (error, address, family) => resolve({ error, address, family }));
    });

  it('refuses a name when any of its addresses is refused, not only the first', async () => {
    const answer = await run(
      lookupWith('private-allowed', [
        { address: '93.184.216.34', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ]),
      { all: true },
    );
    expect(answer.error).toBeInstanceOf(UpstreamAddressRefused);
  });

  it.each(['::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::169.254.169.254', '64:ff9b::a9fe:a9fe'])(
    'refuses a DNS answer that spells the metadata address as the IPv6 address %s, on any network',
    async (address) => {
      const answer = await run(lookupWith('private-allowed', [{ address, family: 6 }]), { all: true });
      expect(answer.error).toBeInstanceOf(UpstreamAddressRefused);
    },
  );

  it('refuses private answers on public-only, allows them where private networks are', async () => {
    const answers = [{ address: '10.0.0.7', family: 4 }];
    expect((await run(lookupWith('public-only', answers))).error).toBeInstanceOf(UpstreamAddressRefused);
    expect(await run(lookupWith('private-allowed', answers))).toEqual({ error: null, address: '10.0.0.7', family: 4 });
  });

  it('answers as the socket asked: every address, or the first of a family', async () => {
    const answers = [
      { address: '2606:4700::1111', family: 6 },
      { address: '1.1.1.1', family: 4 },
    ];
    expect((await run(lookupWith('public-only', answers), { all: true })).address).toEqual(answers);
    expect(await run(lookupWith('public-only', answers), { family: 4 })).toEqual({
      error: null,
      address: '1.1.1.1',
      family: 4,
    });
  });

  it('refuses metadata names without asking DNS', async () => {
    let asked = false;
    const lookup = guardedLookup('private-allowed', async () => {
      asked = true;
      return [{ address: '8.8.8.8', family: 4 }];
    });
    const answer = await new Promise<Error | null>((resolve) => {
      lookup('metadata.google.internal', {}, (error) => resolve(error));
    });
    expect(answer).toBeInstanceOf(UpstreamAddressRefused);
    expect(asked).toBe(false);
  });
});

describe('requestUpstream', () => {
  async function recordingServer() {
    const hits: string[] = [];
    const server = createServer((request, response) => {
      hits.push(request.url ?? '');
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { hits, port: (server.address() as AddressInfo).port, close: () => server.close() };
  }
  const init = (network: UpstreamNetwork) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    signal: new AbortController().signal,
    network,
  });

  it('refuses a name that resolves to loopback on public-only, before any byte is sent', async () => {
    const target = await recordingServer();
    try {
      await expect(requestUpstream(`http://localhost:${target.port}/v1`, init('public-only'))).rejects.toBeInstanceOf(
        UpstreamAddressRefused,
      );
      expect(target.hits).toEqual([]);
      const allowed = await requestUpstream(`http://localhost:${target.port}/v1`, init('private-allowed'));
      expect(allowed.status).toBe(200);
      await allowed.text();
      expect(target.hits).toEqual(['/v1']);
    } finally {
      target.close();
    }
  });

  it('refuses literal metadata addresses and credentials in the address without connecting', async () => {
    for (const url of ['http://169.254.169.254/latest', 'http://[fd00:ec2::254]/', 'http://u:p@127.0.0.1:1/']) {
      await expect(requestUpstream(url, init('private-allowed')), url).rejects.toBeInstanceOf(UpstreamAddressRefused);
    }
  });
});
