import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

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
