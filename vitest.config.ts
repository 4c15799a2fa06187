import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests start real servers; two cores are shared, so keep parallelism modest.
    maxWorkers: 2,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'WARN' },
  },
});
