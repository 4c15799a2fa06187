import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHost } from '../../infra/local/gateway-host.ts';

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-host-'));
});
afterAll(async () => rm(dataDir, { recursive: true, force: true }));

async function models(url: string, key: string) {
  return fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
}

describe('the one-machine host', () => {
  it('creates the first administrator once and keeps all data across a restart', async () => {
    const first = await startGatewayHost({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      adminKey: undefined,
      reaperIntervalMs: 0,
    });
    const adminKey = first.issuedAdminKey;
    expect(adminKey).toMatch(/^sk-gw-/);
    const created = await fetch(`${first.url}/admin/v1/members`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}` },
      body: JSON.stringify({ name: 'kept across restarts' }),
    });
    expect(created.status).toBe(201);
    await first.close();

    const second = await startGatewayHost({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      adminKey: undefined,
      reaperIntervalMs: 0,
    });
    try {
      expect(second.issuedAdminKey).toBeUndefined();
      expect(second.adminMemberId).toBe(first.adminMemberId);
      expect((await models(second.url, adminKey!)).status).toBe(200);
      const members = await fetch(`${second.url}/admin/v1/members`, {
        headers: { authorization: `Bearer ${adminKey}` },
      });
      expect(JSON.stringify(await members.json())).toContain('kept across restarts');
    } finally {
      await second.close();
    }
  });

  it('starts from the `npm start` entry, answers, and shuts down cleanly on Ctrl-C (SIGINT)', async () => {
    const adminKey = 'sk-gw-fixed-admin-key-for-scripts-0001';
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
      env: { ...process.env, PORT: '0', GATEWAY_DATA_DIR: join(dataDir, 'started'), GATEWAY_ADMIN_KEY: adminKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within 30 s:\n${output}`)), 30_000);
      child.stdout.on('data', () => {
        const match = output.match(/listening on (http:\/\/\S+)/);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    expect((await models(url, adminKey)).status).toBe(200);
    expect(output).not.toContain(adminKey);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 60_000);
});
