import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import type { SecretStore } from './secret-store.ts';

/**
 * Secrets in one JSON file, mode 0600. Writes go to a temporary file that is renamed over the old one, so a
 * crash mid-write cannot leave a half-written file that loses every credential.
 */
export function createFileSecretStore(path: string): SecretStore {
  let writing = Promise.resolve();

  async function readAll(): Promise<Record<string, string>> {
    try {
      return JSON.parse(await readFile(path, 'utf8')) as Record<string, string>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
  }

  return {
    async read(name) {
      const value = (await readAll())[name];
      if (value === undefined) throw new Error(`secret ${name} is missing from the local secret file`);
      return value;
    },
    write(name, value) {
      // Serialised: two admin calls at once must not each drop the other's credential.
      writing = writing.then(async () => {
        const secrets = { ...(await readAll()), [name]: value };
        const temporary = `${path}.${process.pid}.tmp`;
        await writeFile(temporary, JSON.stringify(secrets, null, 2), { mode: 0o600 });
        await chmod(temporary, 0o600);
        await rename(temporary, path);
      });
      return writing;
    },
  };
}
