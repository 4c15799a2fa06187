import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type BenchChild, startProgram } from './child-process.ts';

const run = promisify(execFile);

/**
 * The peer: the Portkey gateway from npm, installed into bench/peer/ with its own package.json (so the main
 * project's `npm ci` never installs it), with `@hono/node-server` pinned through `overrides` because its
 * streaming works only with that version.
 */
export interface PeerGateway {
  child: BenchChild;
  url: string;
}

export function peerFolder(projectRoot: string): string {
  return join(projectRoot, 'bench', 'peer');
}

function peerEntry(projectRoot: string): string {
  return join(peerFolder(projectRoot), 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
}

/** Installs the peer when it is missing; the reason it could not be installed otherwise. */
export async function ensurePeerInstalled(projectRoot: string): Promise<void> {
  const entry = peerEntry(projectRoot);
  if (await exists(entry)) return;
  process.stdout.write('Installing the peer gateway into bench/peer (npm install --prefix bench/peer)…\n');
  try {
    await run('npm', ['install', '--prefix', peerFolder(projectRoot), '--no-audit', '--no-fund'], {
      timeout: 300_000,
    });
  } catch (error) {
    const output = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`npm install --prefix bench/peer failed: ${output.trim().split('\n').slice(-3).join(' ')}`);
  }
  if (!(await exists(entry))) throw new Error(`the peer's entry ${entry} is missing after npm install`);
}

export async function startPeerGateway(projectRoot: string, logFile: string): Promise<PeerGateway> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startProgram({
    name: 'peer gateway',
    command: process.execPath,
    // Headless and in production mode: no console UI and no log streaming to it, as a deployment would run it.
    args: [peerEntry(projectRoot), `--port=${port}`, '--headless'],
    env: { PATH: process.env.PATH, NODE_ENV: 'production', HOME: process.env.HOME },
    logFile,
    isReady: async () => (await fetch(`${url}/`)).ok,
  });
  return { child, url };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
