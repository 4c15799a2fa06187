import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import type { SecretStore } from './secret-store.ts';

/**
 * Secrets in one JSON file, mode 0600. Writes go to a temporary file that is renamed over the old one, so a
 * crash mid-write cannot leave a half-written file that loses every credential.
 */
export function createFileSecretStore(path: string): SecretStore {
  let writing = Promise.resolve();
  // One process owns the data folder (the embedded store allows no second), and every write goes through this
  // object, so the copy in memory stays true and the hot path reads no file.
  let loaded: Promise<Record<string, string>> | undefined;

  function readAll(): Promise<Record<string, string>> {
    loaded ??= readFile(path, 'utf8')
      .then((text) => JSON.parse(text) as Record<string, string>)
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return {};
        // A failed read (or a file that is not JSON) is not remembered: the next call reads again.
        loaded = undefined;
        throw error;
      });
    return loaded;
  }

  function change(edit: (secrets: Record<string, string>) => Record<string, string>): Promise<void> {
    // Serialised: two admin calls at once must not each drop the other's credential. A failed write fails its
    // own caller only; the next one starts afresh.
    const written = writing.then(async () => {
      const secrets = edit(await readAll());
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(secrets, null, 2), { mode: 0o600 });
      await chmod(temporary, 0o600);
      await rename(temporary, path);
      loaded = Promise.resolve(secrets);
    });
    writing = written.catch(() => undefined);
    return written;
  }

  return {
    async read(name) {
      let value = (await readAll())[name];
      if (value === undefined) {
        // Not in the copy in memory: look in the file once more, in case another process sharing it (a tool, or
        // the several function bundles one test loads) wrote it since. Writes of this process wait for theirs.
        await writing;
        loaded = undefined;
        value = (await readAll())[name];
      }
      if (value === undefined) throw new Error(`secret ${name} is missing from the local secret file`);
      return value;
    },
    write(name, value) {
      return change((secrets) => ({ ...secrets, [name]: value }));
    },
    remove(name) {
      return change((secrets) => Object.fromEntries(Object.entries(secrets).filter(([key]) => key !== name)));
    },
  };
}
