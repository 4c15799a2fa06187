import * as z from 'zod';
import { startGatewayHost } from './gateway-host.ts';

/** `npm start`: the gateway on one machine. Settings come from the environment; see the README. */
const settings = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(8787),
    HOST: z.string().min(1).default('127.0.0.1'),
    GATEWAY_DATA_DIR: z.string().min(1).default('.data'),
    GATEWAY_ADMIN_KEY: z.string().min(1).optional(),
  })
  .parse(process.env);

// The SDK is pinned in package.json; its warning concerns later versions that this install does not use.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const host = await startGatewayHost({
  host: settings.HOST,
  port: settings.PORT,
  dataDir: settings.GATEWAY_DATA_DIR,
  adminKey: settings.GATEWAY_ADMIN_KEY,
  environment: process.env,
});

process.stdout.write(`Gateway listening on ${host.url} (data in ${settings.GATEWAY_DATA_DIR})\n`);
process.stdout.write(`OpenAI-compatible base URL: ${host.url}/v1\n`);
if (host.issuedAdminKey) {
  process.stdout.write(
    `\nFirst start: an administrator was created. Its key is shown this once; keep it safe:\n\n  ${host.issuedAdminKey}\n\n` +
      `Use it with the admin CLI:  GATEWAY_ADMIN_KEY=<key> npm run admin -- member list\n\n`,
  );
}

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: finishing open requests and closing the store…\n`);
  host.close().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`shutdown failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
