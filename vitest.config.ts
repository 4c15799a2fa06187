import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests start real servers; two cores are shared, so keep parallelism modest.
    maxWorkers: 2,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'WARN' },
    // Built Lambda bundles (test/infra/cdk-synth.test.ts) load as Node loads them on Lambda, not through Vite.
    server: { deps: { external: [/\/asset\.[0-9a-f]{64}\/index\.mjs$/] } },
  },
});
