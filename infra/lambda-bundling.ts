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
  esbuildArgs: {
    // NodejsFunction has no `alias` option; it passes each `--alias` value to esbuild's command line as name=path.
    '--alias': Object.entries(bundleAliases).map(([name, path]) => `${name}=${path}`),
    // NodejsFunction's own one-file build is written over by the split build after it (splitOutput, below): it
    // leaves the packages out, which makes it a fraction of a second instead of seconds.
    '--packages': 'external',
  },
} as const;

/**
 * Every function is built split (esbuild's `splitting`): each `await import()` in its graph becomes a file of its own
 * beside `index.mjs`, loaded when that import first runs, and code both sides use goes into shared chunks that
 * `index.mjs` imports, so a class (GatewayError, say) is one class on both sides of the boundary. A cold start loads
 * `index.mjs` and the chunks it imports statically, nothing else: that is what the budget counts
 * (infra/lambda-bundle-build.ts). NodejsFunction writes one file, so infra/lambda-split-bundle.ts builds its
 * output this way after it (docs/bundles.md).
 */
export const splitOutput = {
  /** Each entry is written as `<its name>.mjs`: the function's is named `index`, Lambda's default. */
  entryNames: '[name]',
  functionEntryName: 'index',
  /** Below a folder of their own, so that nothing in it can be taken for the entry. */
  chunkNames: 'chunks/[name]-[hash]',
  extension: '.mjs',
} as const;
