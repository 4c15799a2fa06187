import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** The file that says which process owns a data folder: its pid, as decimal text. */
export const dataFolderLockPath = (dataDir: string) => join(dataDir, 'gateway.lock');

/** A second live gateway on a data folder that one already owns. */
export class DataFolderInUseError extends Error {
  readonly ownerPid: number;

  constructor(dataDir: string, ownerPid: number) {
    super(
      `The data folder ${dataDir} is in use by another gateway (pid ${ownerPid}). One process owns a data folder: ` +
        `stop that one first, or start this one with another GATEWAY_DATA_DIR.`,
    );
    this.name = 'DataFolderInUseError';
    this.ownerPid = ownerPid;
  }
}

export interface DataFolderLock {
  /** The pid of a process that held the folder and died without letting go (its lock taken over), if any. */
  staleOwnerPid: number | undefined;
  /** Lets go of the folder (the lock file removed, if it is still this process's). */
  release(): Promise<void>;
}

/**
 * Makes this process the one owner of a data folder, so that whatever the store holds as running at start was left
 * by a process that is gone (gateway-host.ts settles it). The lock file is created exclusively; one that names a
 * live process refuses the start, one that names a dead process (a crash, a SIGKILL) is taken over. A lock naming
 * this very pid is stale too: in a container the restarted gateway is often the same pid as the one that died.
 */
export async function lockDataFolder(dataDir: string): Promise<DataFolderLock> {
  const path = dataFolderLockPath(dataDir);
  let staleOwnerPid: number | undefined;
  // A few rounds: two processes that both found the same stale lock race to create the new one; one wins.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const file = await open(path, 'wx', 0o600);
      await file.writeFile(`${process.pid}\n`);
      await file.close();
      return { staleOwnerPid, release: () => releaseLock(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await lockOwner(path);
    if (owner !== undefined && owner !== process.pid && isAlive(owner)) throw new DataFolderInUseError(dataDir, owner);
    staleOwnerPid = owner;
    await rm(path, { force: true });
  }
  throw new Error(`Could not take the data folder lock ${path}: another process keeps taking it.`);
}

/** The pid a lock file names; undefined when it is gone or unreadable (a crash while it was being written). */
async function lockOwner(path: string): Promise<number | undefined> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** Signal 0 asks the kernel whether the process exists without touching it; EPERM means it exists as another user. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function releaseLock(path: string): Promise<void> {
  if ((await lockOwner(path)) === process.pid) await rm(path, { force: true });
}
