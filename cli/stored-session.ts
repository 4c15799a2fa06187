import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The gateway session `login` stores for later commands: in the user's config folder (`$XDG_CONFIG_HOME`, else
 * `~/.config`), `model-gateway/session.json`, mode 0600 in a 0700 folder. It names the gateway it belongs to, so
 * a session is never sent to another gateway.
 */
export interface StoredSession {
  gateway: string;
  session: string;
  expiresAt: string;
  member: { id: string; name: string; role: string };
}

export function sessionFilePath(env: Readonly<Record<string, string | undefined>>): string {
  const configHome = env['XDG_CONFIG_HOME']?.trim() || join(env['HOME']?.trim() || homedir(), '.config');
  return join(configHome, 'model-gateway', 'session.json');
}

export async function writeStoredSession(env: Readonly<Record<string, string | undefined>>, stored: StoredSession) {
  const path = sessionFilePath(env);
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  // Removed first: `mode` applies only to a file being created, and an older file may have been readable.
  await rm(path, { force: true });
  await writeFile(path, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
}

/** The stored session for this gateway while it has not expired; undefined otherwise (or when none is stored). */
export async function readStoredSession(
  env: Readonly<Record<string, string | undefined>>,
  gateway: URL,
  now: Date,
): Promise<StoredSession | undefined> {
  let stored: Partial<StoredSession>;
  try {
    stored = JSON.parse(await readFile(sessionFilePath(env), 'utf8')) as Partial<StoredSession>;
  } catch {
    return undefined;
  }
  if (typeof stored.session !== 'string' || typeof stored.expiresAt !== 'string' || stored.gateway !== gateway.origin) {
    return undefined;
  }
  if (!(Date.parse(stored.expiresAt) > now.getTime())) return undefined;
  return stored as StoredSession;
}

export async function removeStoredSession(env: Readonly<Record<string, string | undefined>>): Promise<void> {
  await rm(sessionFilePath(env), { force: true });
}
