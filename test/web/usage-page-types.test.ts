import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { DetailRow as ServerDetailRow } from '../../shared/usage/usage-details.ts';
import type { UsageSummary as ServerUsageSummary } from '../../shared/usage/usage-summary.ts';
import type { VisibleKey as ServerVisibleKey } from '../../shared/usage/visible-keys.ts';
import type { DetailRow, UsageSummary, VisibleKey } from '../../web/src/usage-types.ts';

const run = promisify(execFile);

/**
 * The page is browser code (DOM types, no Node), so the root project's `tsc` does not cover it: its own
 * tsconfig does, and this keeps that check inside `npm test`.
 */
describe('the usage page sources', () => {
  it('type-check strictly against the DOM', async () => {
    const tsc = join(process.cwd(), 'node_modules', '.bin', 'tsc');
    const result = await run(tsc, ['--noEmit', '-p', join(process.cwd(), 'web')]).catch(
      (error: { stdout?: string; stderr?: string }) => ({
        stdout: error.stdout ?? '',
        stderr: error.stderr ?? 'failed',
      }),
    );
    expect(`${result.stdout}${result.stderr}`.trim()).toBe('');
  }, 60_000);
});

/**
 * The page mirrors the API's shapes by hand (it never imports server code); these fail `tsc` (`npm run typecheck`)
 * as soon as either side has a field, or a field type, the other lacks.
 */
describe("the usage page's copy of the API shapes", () => {
  it('is exactly what the server sends', () => {
    expectTypeOf<UsageSummary>().toEqualTypeOf<ServerUsageSummary>();
    expectTypeOf<ServerUsageSummary>().toEqualTypeOf<UsageSummary>();
    expectTypeOf<DetailRow>().toEqualTypeOf<ServerDetailRow>();
    expectTypeOf<ServerDetailRow>().toEqualTypeOf<DetailRow>();
    expectTypeOf<VisibleKey>().toEqualTypeOf<ServerVisibleKey>();
    expectTypeOf<ServerVisibleKey>().toEqualTypeOf<VisibleKey>();
  });
});
