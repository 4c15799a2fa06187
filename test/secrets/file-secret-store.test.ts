import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileSecretStore } from '../../shared/secrets/file-secret-store.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'gateway-secrets-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('the local secret file', () => {
  it('keeps every credential of concurrent writes, in a 0600 file', async () => {
    const path = join(folder, 'secrets.json');
    const store = createFileSecretStore(path);
    await Promise.all(Array.from({ length: 20 }, (_, index) => store.write(`c${index}`, `secret-${index}`)));
    for (let index = 0; index < 20; index++) expect(await store.read(`c${index}`)).toBe(`secret-${index}`);
    expect(await createFileSecretStore(path).read('c7')).toBe('secret-7');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('recovers from a failed write: only that caller fails, the next write works', async () => {
    const path = join(folder, 'secrets.json');
    const store = createFileSecretStore(path);
    // A non-empty folder where the file belongs makes the final rename fail, even for root.
    await mkdir(join(path, 'in-the-way'), { recursive: true });
    await expect(store.write('a', 'one')).rejects.toThrow();
    await rm(path, { recursive: true });
    await store.write('b', 'two');
    expect(await store.read('b')).toBe('two');
  });

  it('reads a repaired file again after a read of a corrupt one failed', async () => {
    const path = join(folder, 'secrets.json');
    await writeFile(path, '{ not json', { mode: 0o600 });
    const store = createFileSecretStore(path);
    await expect(store.read('a')).rejects.toThrow();
    await writeFile(path, JSON.stringify({ a: 'fixed' }), { mode: 0o600 });
    expect(await store.read('a')).toBe('fixed');
  });

  it('removes a credential for good, keeping the others', async () => {
    const path = join(folder, 'secrets.json');
    const store = createFileSecretStore(path);
    await store.write('kept', 'one');
    await store.write('gone', 'two');
    await store.remove('gone');
    await expect(store.read('gone')).rejects.toThrow(/missing/);
    expect(await store.read('kept')).toBe('one');
    expect(await readFile(path, 'utf8')).not.toContain('two');
  });

  it('finds a credential another process wrote to the same file since it was read', async () => {
    const path = join(folder, 'secrets.json');
    const first = createFileSecretStore(path);
    await first.write('a', 'one');
    await createFileSecretStore(path).write('b', 'two');
    expect(await first.read('b')).toBe('two');
  });
});
