import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const binPath = fileURLToPath(new URL('../../bin/gateway-admin.mjs', import.meta.url));

interface BinRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the bin as an installed package would, from a foreign working directory, to prove the launcher finds the
 * sources and the tsconfig by its own location.
 */
function runBin(argv: readonly string[]): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, ...argv], {
      cwd: tmpdir(),
      env: { PATH: process.env['PATH'] },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('bin/gateway-admin.mjs', () => {
  it('prints usage for --help', async () => {
    const run = await runBin(['--help']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Usage: gateway-admin/);
    expect(run.stdout).toContain('connection create');
  });

  it('passes the exit code of a usage error to the process', async () => {
    const run = await runBin(['member', 'list']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'gateway-admin member list: GATEWAY_ADMIN_KEY is not set; export the admin key of the gateway first\n',
    );
  });
});
