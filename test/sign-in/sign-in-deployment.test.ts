import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeploymentSettings } from '../../infra/deployment-settings.ts';
import { type SynthesizedStack, synthesizeStack } from '../infra/synthesize-stack.ts';

const contextOf = (values: Record<string, unknown>) => (name: string) => values[name];

describe('sign-in on AWS: settings by context, the client secret in Secrets Manager', () => {
  it('passes the context to the functions as GATEWAY_OIDC_*, the client secret by its name only', () => {
    const settings = readDeploymentSettings(
      contextOf({
        stage: 'prod',
        oidcIssuer: 'https://example.okta.com/oauth2/default',
        oidcClientId: '0oa1',
        oidcDeviceClientId: '0oa2',
        oidcAdminGroups: ['gateway-admins', 'platform'],
        oidcAllowedGroups: 'staff',
        oidcEmailVerifiedClaim: 'xms_edov',
        oidcEmailDomains: 'example.com',
        oidcUnknownPeople: 'create-member',
        sessionHours: '8',
      }),
    );
    expect(settings.signInEnvironment).toEqual({
      GATEWAY_OIDC_ISSUER: 'https://example.okta.com/oauth2/default',
      GATEWAY_OIDC_CLIENT_ID: '0oa1',
      GATEWAY_OIDC_DEVICE_CLIENT_ID: '0oa2',
      GATEWAY_OIDC_ADMIN_GROUPS: 'gateway-admins,platform',
      GATEWAY_OIDC_ALLOWED_GROUPS: 'staff',
      GATEWAY_OIDC_EMAIL_VERIFIED_CLAIM: 'xms_edov',
      GATEWAY_OIDC_EMAIL_DOMAINS: 'example.com',
      GATEWAY_OIDC_UNKNOWN_PEOPLE: 'create-member',
      GATEWAY_SESSION_HOURS: '8',
      GATEWAY_OIDC_CLIENT_SECRET_NAME: 'model-gateway/prod/oidc-client-secret',
    });
    const publicClient = readDeploymentSettings(
      contextOf({ oidcIssuer: 'https://accounts.google.com', oidcClientId: 'x', oidcClientSecret: 'none' }),
    );
    expect(publicClient.signInEnvironment).not.toHaveProperty('GATEWAY_OIDC_CLIENT_SECRET_NAME');
  });

  it('has no sign-in without an issuer, and refuses sign-in settings that would be ignored', () => {
    expect(readDeploymentSettings(contextOf({})).signInEnvironment).toEqual({});
    expect(() => readDeploymentSettings(contextOf({ oidcClientId: 'x' }))).toThrow(/needs "oidcIssuer"/);
    expect(() =>
      readDeploymentSettings(
        contextOf({ oidcIssuer: 'https://x.example', oidcClientId: 'x', oidcClientSecret: 'yes' }),
      ),
    ).toThrow(/stored or none/);
  });

  describe('the synthesized stack', () => {
    let synthesized: SynthesizedStack;
    beforeAll(async () => {
      synthesized = await synthesizeStack('signin', {
        oidcIssuer: 'https://login.example.com',
        oidcClientId: 'gateway',
        oidcAdminGroups: 'gateway-admins',
      });
    }, 120_000);
    afterAll(async () => synthesized?.cleanup());

    it('gives the admin function the settings, and a CloudFront behaviour sends /app/auth/* to it with cookies and query', () => {
      const functions = Object.values(synthesized.resources).filter(
        (resource) => resource.Type === 'AWS::Lambda::Function',
      );
      const variables = functions.map(
        (resource) =>
          ((resource.Properties as { Environment?: { Variables?: Record<string, unknown> } }).Environment?.Variables ??
            {}) as Record<string, unknown>,
      );
      const withSignIn = variables.filter((each) => each['GATEWAY_OIDC_ISSUER'] === 'https://login.example.com');
      expect(withSignIn.length).toBeGreaterThanOrEqual(2);
      expect(withSignIn[0]?.['GATEWAY_OIDC_CLIENT_SECRET_NAME']).toBe('model-gateway/signin/oidc-client-secret');
      const behaviours = synthesized.stack.node
        .findAll()
        .flatMap((construct) =>
          'behaviours' in construct ? [construct.behaviours as ReadonlyMap<string, unknown>] : [],
        );
      expect(behaviours[0]?.get('/app/auth/*')).toBe('admin');
    });
  });
});
