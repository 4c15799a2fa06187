import * as z from '../../shared/validation/zod.ts';
import { DataFolderInUseError } from './data-folder-lock.ts';
import { type GatewayHost, startGatewayHost } from './gateway-host.ts';

/** `npm start`: the gateway on one machine. Settings come from the environment; see docs/settings.md. */
const settings = z
  .object({
    PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65_535)), 8787),
    HOST: z._default(z.string().check(z.minLength(1)), '127.0.0.1'),
    GATEWAY_DATA_DIR: z._default(z.string().check(z.minLength(1)), '.data'),
    GATEWAY_ADMIN_KEY: z.optional(z.string().check(z.minLength(1))),
  })
  .parse(process.env);

// The SDK is pinned in package.json; its warning concerns later versions that this install does not use.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Signals are heard from the first moment: a stop that arrives while the host starts waits for it, then closes it,
// so the data folder's lock is always let go of by a stop (a SIGKILL is what the next start recovers from).
let starting: Promise<GatewayHost | undefined> = Promise.resolve(undefined);
let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: finishing open requests and closing the store…\n`);
  starting
    .then((started) => started?.close())
    .then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

let host: GatewayHost;
try {
  starting = startGatewayHost({
    host: settings.HOST,
    port: settings.PORT,
    dataDir: settings.GATEWAY_DATA_DIR,
    adminKey: settings.GATEWAY_ADMIN_KEY,
    environment: process.env,
  });
  host = (await starting) as GatewayHost;
} catch (error) {
  // A folder another live gateway owns is the person's to resolve, not a crash: say so plainly.
  if (!(error instanceof DataFolderInUseError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

// The start message in one write, so whoever reads the output sees it whole.
let startMessage =
  `Gateway listening on ${host.url} (data in ${settings.GATEWAY_DATA_DIR})\n` +
  `OpenAI-compatible base URL: ${host.url}/v1\n` +
  host.storeNotes.map((note) => `${note}\n`).join('');
if (host.issuedAdminKey) {
  startMessage +=
    `\nFirst start: an administrator was created. Its key is shown this once; keep it safe:\n\n  ${host.issuedAdminKey}\n\n` +
    `Use it with the admin CLI:  GATEWAY_ADMIN_KEY=<key> npm run admin -- member list\n\n`;
}
// Stopped while starting: the stop closes the host; it is not announced as listening.
if (!stopping) process.stdout.write(startMessage);
