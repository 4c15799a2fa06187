import { defineConfig } from 'vitest/config';

/**
 * Files whose outcome depends on the calendar clock (UTC days and minutes, holder days, lease expiry, the request
 * deadline). They run once on the real clock with everything else, and again with the gateway's calendar clock held
 * on each instant below (test/support/pinned-clock.ts), so no test depends on the time of day it runs at.
 */
const clockSensitiveFiles = [
  'test/e2e/holder-keys.test.ts',
  'test/e2e/request-deadline.test.ts',
  'test/e2e/admission-limits.test.ts',
  'test/e2e/accounting-rules.test.ts',
  'test/e2e/limits.test.ts',
  'test/accounting/accounting-faults.test.ts',
  'test/local/lambda-stream-shim.test.ts',
  'test/e2e/reservation-bounds.test.ts',
  'test/e2e/usage-validation.test.ts',
  'test/e2e/translated-route-failures.test.ts',
  'test/accounting/settlement-on-every-path.test.ts',
  'test/e2e/admin-updates.test.ts',
  'test/e2e/admin-lists.test.ts',
  'test/accounting/admission-handle.test.ts',
];
/**
 * The accounting and usage end-to-end files, which run on the default engine (SQLite) with everything else and
 * again on the `dynamodb` engine (the embedded dynalite): `GATEWAY_TEST_STORE`, read by test/support/test-gateway.ts.
 */
const engineSensitiveFiles = [
  'test/e2e/accounting-rules.test.ts',
  'test/e2e/admission-limits.test.ts',
  'test/e2e/holder-keys.test.ts',
  'test/accounting/accounting-faults.test.ts',
  'test/usage/rollup-rebuild.test.ts',
  'test/usage/usage-limits-csv.test.ts',
  'test/usage/usage-periods.test.ts',
  'test/usage/usage-totals-map.test.ts',
  'test/usage/usage-visibility.test.ts',
  'test/local/lambda-stream-shim.test.ts',
  'test/e2e/reservation-bounds.test.ts',
  'test/e2e/usage-validation.test.ts',
  'test/accounting/settlement-on-every-path.test.ts',
  'test/e2e/allowance-alerts.test.ts',
  'test/observability/opentelemetry.test.ts',
  'test/e2e/admin-updates.test.ts',
  'test/e2e/admin-lists.test.ts',
];
// Past instants on purpose: a deadline taken from the calendar clock would already have passed at each of them.
const pinnedInstants = ['2024-02-29T12:30:00.000Z', '2025-12-31T23:59:50.000Z'];
const environment = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'WARN' };

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests start real servers; two cores are shared, so keep parallelism modest.
    maxWorkers: 2,
    env: environment,
    globalSetup: ['test/support/one-calendar-day.ts'],
    // Built Lambda bundles (test/infra/cdk-synth.test.ts) load as Node loads them on Lambda, not through Vite.
    server: { deps: { external: [/\/asset\.[0-9a-f]{64}\/index\.mjs$/] } },
    projects: [
      { extends: true, test: { name: 'real clock', include: ['test/**/*.test.ts'] } },
      ...pinnedInstants.map((instant) => ({
        extends: true as const,
        test: {
          name: `clock ${instant}`,
          include: clockSensitiveFiles,
          env: { ...environment, GATEWAY_TEST_CLOCK: instant },
        },
      })),
      {
        extends: true,
        test: {
          name: 'dynamodb engine',
          include: engineSensitiveFiles,
          env: { ...environment, GATEWAY_TEST_STORE: 'dynamodb' },
        },
      },
    ],
  },
});
