import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (infra/lambda-bundling.ts aliases it
 * here). Lambda always puts the function role's credentials in the environment, so the SDK's default chain
 * would only ever take its first step; its other steps (SSO, profiles, web identity, STS, instance metadata)
 * were about 90 KB of every bundle.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
