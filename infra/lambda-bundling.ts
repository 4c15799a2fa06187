/**
 * How every gateway function is bundled, without the CDK: infra/gateway-function.ts passes these options to
 * NodejsFunction and bench/lambda-bundles.ts passes them to esbuild itself, so the bench measures the bundles
 * `cdk deploy` uploads. Named as NodejsFunction's `bundling` names them.
 */

/** Lets bundled CommonJS dependencies call `require` inside the ESM output. */
const requireShimBanner = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

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
} as const;
