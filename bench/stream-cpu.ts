import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGatewayHost } from '../infra/local/gateway-host.ts';
import { loadLocalFunctions } from '../infra/local/local-functions.ts';
import { generateKeySecret } from '../shared/auth/key-secret.ts';
import { logger } from '../shared/observability/logger.ts';
import { AdminClient } from '../test/support/test-gateway.ts';
import { plan } from './bench-plan.ts';
import { tellParentReady } from './child-process.ts';
import {
  answerBenchUpstreamInMemory,
  benchUpstreamUrl,
  describeStreamCpu,
  measureStreamCpu,
} from './measure-stream-cpu.ts';

/**
 * The CPU-per-streamed-event phase of `npm run bench`, in a process of its own (run-bench.ts starts it and takes
 * its figures over IPC). Run alone, `npx tsx bench/stream-cpu.ts` prints them: quick enough to compare a change
 * against the code it started from, on two checkouts.
 */
// One line per settled request would be most of what this prints.
logger.setLogLevel('WARN');
const dataDir = await mkdtemp(join(tmpdir(), 'gateway-bench-stream-cpu-'));
const adminKey = generateKeySecret('gw');
const host = await startGatewayHost({
  host: '127.0.0.1',
  port: 0,
  dataDir,
  adminKey,
  environment: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  reaperIntervalMs: 0,
});
try {
  const admin = new AdminClient(host.url, adminKey);
  await admin.createConnection({
    provider: 'openai',
    wire: 'openai-chat',
    baseUrl: `${benchUpstreamUrl}/v1`,
    models: ['bench-events'],
    apiKey: 'bench-upstream-credential',
  });
  // The alpha family's messages-style route: chat requests for K2.7 are translated to it.
  await admin.createConnection({
    provider: 'alpha',
    wire: 'anthropic-messages',
    baseUrl: `${benchUpstreamUrl}/v1`,
    upstream: 'alpha',
    apiKey: 'bench-upstream-credential',
  });
  // A finite allowance, so every request takes the full accounting path.
  const { key } = await admin.createMemberWithKey({ dailyTokens: 1_000_000_000_000 });
  const restoreFetch = answerBenchUpstreamInMemory();
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const figures = await measureStreamCpu(host, await loadLocalFunctions(), key, plan.streamCpu);
  restoreFetch();
  if (process.send) {
    tellParentReady(figures);
  } else {
    process.stdout.write(`${describeStreamCpu(figures)}\n`);
    process.stdout.write(`load average ${loadAtStart.toFixed(2)} at start, ${(loadavg()[0] ?? 0).toFixed(2)} at end\n`);
  }
} finally {
  await host.close();
  await rm(dataDir, { recursive: true, force: true });
}
