import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../shared/config/gateway-config.ts';

const base = { GATEWAY_SECRET_STORE: 'file', GATEWAY_SECRET_FILE: '/tmp/none.json' };

describe('sign-in configuration', () => {
  it('is absent without an issuer, whatever else is set', () => {
    expect(parseGatewayConfig({ ...base, GATEWAY_OIDC_CLIENT_ID: 'x' }).signIn).toBeUndefined();
  });

  it('has documented defaults', () => {
    const config = parseGatewayConfig({
      ...base,
      GATEWAY_OIDC_ISSUER: 'https://login.example.com/',
      GATEWAY_OIDC_CLIENT_ID: 'gateway',
    });
    expect(config.signIn).toEqual({
      issuer: 'https://login.example.com/',
      clientId: 'gateway',
      clientSecret: { kind: 'none' },
      scopes: 'openid email profile',
      emailVerifiedClaim: 'email_verified',
      groupsClaim: 'groups',
      adminGroups: [],
      allowedGroups: [],
      emailDomains: [],
      unknownPeople: 'refuse',
      sessionMs: 12 * 3_600_000,
    });
  });

  it('reads every setting', () => {
    const config = parseGatewayConfig({
      ...base,
      GATEWAY_OIDC_ISSUER: 'https://login.example.com',
      GATEWAY_OIDC_CLIENT_ID: 'gateway',
      GATEWAY_OIDC_CLIENT_SECRET_NAME: 'model-gateway/prod/oidc-client-secret',
      GATEWAY_OIDC_DEVICE_CLIENT_ID: 'gateway-cli',
      GATEWAY_OIDC_SCOPES: 'openid email profile groups',
      GATEWAY_OIDC_GROUPS_CLAIM: 'cognito:groups',
      GATEWAY_OIDC_ADMIN_GROUPS: 'gateway-admins, platform',
      GATEWAY_OIDC_ALLOWED_GROUPS: 'staff,contractors',
      GATEWAY_OIDC_EMAIL_DOMAINS: '@Example.com,example.org',
      GATEWAY_OIDC_UNKNOWN_PEOPLE: 'create-member',
      GATEWAY_SESSION_HOURS: '1.5',
    });
    expect(config.signIn).toMatchObject({
      clientSecret: { kind: 'secret-store', name: 'model-gateway/prod/oidc-client-secret' },
      deviceClientId: 'gateway-cli',
      scopes: 'openid email profile groups',
      groupsClaim: 'cognito:groups',
      adminGroups: ['gateway-admins', 'platform'],
      allowedGroups: ['staff', 'contractors'],
      emailDomains: ['example.com', 'example.org'],
      unknownPeople: 'create-member',
      sessionMs: 5_400_000,
    });
  });

  it('refuses an issuer without a client id, two client secrets, and unknown choices', () => {
    expect(() => parseGatewayConfig({ ...base, GATEWAY_OIDC_ISSUER: 'https://login.example.com' })).toThrow(
      /GATEWAY_OIDC_CLIENT_ID is required/,
    );
    const issuer = { ...base, GATEWAY_OIDC_ISSUER: 'https://login.example.com', GATEWAY_OIDC_CLIENT_ID: 'g' };
    expect(() =>
      parseGatewayConfig({ ...issuer, GATEWAY_OIDC_CLIENT_SECRET: 'a', GATEWAY_OIDC_CLIENT_SECRET_NAME: 'b' }),
    ).toThrow(/not both/);
    expect(() => parseGatewayConfig({ ...issuer, GATEWAY_OIDC_UNKNOWN_PEOPLE: 'welcome' })).toThrow(
      /GATEWAY_OIDC_UNKNOWN_PEOPLE/,
    );
    expect(() => parseGatewayConfig({ ...issuer, GATEWAY_OIDC_ISSUER: 'ftp://x' })).toThrow(/GATEWAY_OIDC_ISSUER/);
  });
});
