import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

export interface DynamoDbLocal {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * AWS's own DynamoDB Local engine, from the jar that the `amplify-dynamodb-simulator` package ships, run in
 * memory as a child process. Its native SQLite libraries sit beside the jar (`DynamoDBLocal_lib`). A machine
 * where it cannot start fails the suite with the reason: the contract must hold on both engines, so this is
 * never skipped.
 */
export async function startDynamoDbLocal(): Promise<DynamoDbLocal> {
  const emulator = join(
    dirname(createRequire(import.meta.url).resolve('amplify-dynamodb-simulator/package.json')),
    'emulator',
  );
  const jar = join(emulator, 'DynamoDBLocal.jar');
  await access(jar).catch(() => {
    throw new Error(`DynamoDB Local: ${jar} is missing; run npm install (devDependency amplify-dynamodb-simulator)`);
  });
  const port = await freePort();
  const output: string[] = [];
  let child: ChildProcess;
  try {
    child = spawn(
      'java',
      [`-Djava.library.path=${join(emulator, 'DynamoDBLocal_lib')}`, '-jar', jar, '-inMemory', '-port', String(port)],
      { cwd: emulator, stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (error) {
    throw new Error(`DynamoDB Local could not be started (is Java 17 installed? \`java -version\`): ${String(error)}`);
  }
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) =>
      reject(
        new Error(`DynamoDB Local could not be started (is Java 17 installed? \`java -version\`): ${error.message}`),
      ),
    );
    child.once('exit', (code) =>
      reject(new Error(`DynamoDB Local exited with ${code} before it answered:\n${output.join('')}`)),
    );
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  const answers = async () => {
    while (Date.now() < deadline) {
      // Any HTTP answer means the engine listens; the request itself is not a valid DynamoDB call.
      if (
        await fetch(endpoint).then(
          () => true,
          () => false,
        )
      )
        return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGKILL');
    throw new Error(`DynamoDB Local did not answer on ${endpoint} within 30 s:\n${output.join('')}`);
  };
  await Promise.race([answers(), failed]);
  failed.catch(() => {});
  return {
    endpoint,
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
