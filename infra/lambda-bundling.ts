/**
 * How every gateway function is bundled, without the CDK: infra/gateway-function.ts passes these options to
 * NodejsFunction and bench/lambda-bundles.ts passes them to esbuild itself, so the bench measures the bundles
 * `cdk deploy` uploads. Named as NodejsFunction's `bundling` names them.
 */

import { fileURLToPath } from 'node:url';

/** Lets bundled CommonJS dependencies call `require` inside the ESM output. */
const requireShimBanner = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Packages the bundles replace, with what replaces them (esbuild's `alias`): see infra/lambda-credentials.ts and
 * infra/lambda-event-streams.ts and infra/lambda-lru-cache.ts.
 */
export const bundleAliases: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': fileURLToPath(new URL('./lambda-credentials.ts', import.meta.url)),
  '@smithy/core/event-streams': fileURLToPath(new URL('./lambda-event-streams.ts', import.meta.url)),
  'mnemonist/lru-cache': fileURLToPath(new URL('./lambda-lru-cache.ts', import.meta.url)),
};

export const lambdaBundling = {
  format: 'esm',
  mainFields: ['module', 'main'],
  banner: requireShimBanner,
  minify: true,
  sourceMap: true,
  // Stack traces need only the mappings; the sources would double the asset that every cold start loads.
  sourcesContent: false,
  // The SDK version the tests ran against, not whichever one the runtime happens to carry.
  bundleAwsSDK: true,
  // NodejsFunction has no `alias` option; it passes each `--alias` value to esbuild's command line as name=path.
  esbuildArgs: { '--alias': Object.entries(bundleAliases).map(([name, path]) => `${name}=${path}`) },
} as const;
