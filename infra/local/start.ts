import * as z from '../../shared/validation/zod.ts';
import { startGatewayHost } from './gateway-host.ts';

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

const host = await startGatewayHost({
  host: settings.HOST,
  port: settings.PORT,
  dataDir: settings.GATEWAY_DATA_DIR,
  adminKey: settings.GATEWAY_ADMIN_KEY,
  environment: process.env,
});

process.stdout.write(`Gateway listening on ${host.url} (data in ${settings.GATEWAY_DATA_DIR})\n`);
process.stdout.write(`OpenAI-compatible base URL: ${host.url}/v1\n`);
for (const note of host.storeNotes) process.stdout.write(`${note}\n`);
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
