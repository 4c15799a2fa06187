import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../shared/config/gateway-config.ts';
import { gatewayEndpoint, viewerHostHeader } from '../../shared/http/gateway-endpoint.ts';

const local = { publicUrl: undefined, originSecretIds: undefined };
const behindCloudFront = { publicUrl: undefined, originSecretIds: ['origin/a'] };

describe("the gateway's own address (the holder policy record's endpoint)", () => {
  it('is the Host a request came with on the one-machine host, whatever header a client adds', () => {
    expect(gatewayEndpoint(local, { host: '127.0.0.1:8787', [viewerHostHeader]: 'spoofed.example' })).toBe(
      'http://127.0.0.1:8787',
    );
  });

  it("is the viewer's host over HTTPS behind CloudFront, never the function URL's own Host", () => {
    const headers = { host: 'abc.lambda-url.eu-west-1.on.aws', [viewerHostHeader]: 'gateway.example.com' };
    expect(gatewayEndpoint(behindCloudFront, headers)).toBe('https://gateway.example.com');
    expect(gatewayEndpoint(behindCloudFront, { host: 'abc.lambda-url.eu-west-1.on.aws' })).toBeUndefined();
  });

  it('is the configured public URL where one is set, without its path', () => {
    const config = parseGatewayConfig({ GATEWAY_PUBLIC_URL: 'https://models.example.org/some/path' });
    expect(config.publicUrl).toBe('https://models.example.org');
    expect(gatewayEndpoint(config, { host: '127.0.0.1:8787' })).toBe('https://models.example.org');
    expect(() => parseGatewayConfig({ GATEWAY_PUBLIC_URL: 'ftp://models.example.org' })).toThrow(/GATEWAY_PUBLIC_URL/);
  });
});
