import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { localEarlierUsageTable, localTableNames } from '../../infra/local/open-local-store.ts';
import { pascalCase } from '../../infra/pascal-case.ts';
import { stackNameFor } from '../../infra/stack-outputs.ts';
import { backgroundFunctionIds } from '../../infra/stream-functions.ts';
import { telemetryBundleFile } from '../../infra/telemetry-bundle.ts';
import { bootstrapAdministrator } from '../../shared/admin/bootstrap-admin.ts';
import { viewerHostHeader } from '../../shared/http/gateway-endpoint.ts';
import { originSecretHeader } from '../../shared/http/origin-check.ts';
import { type FunctionId, functionIds } from '../../shared/http/route-table.ts';
import { tokenCountSourceHeader } from '../../shared/http/token-count-source.ts';
import type { TelemetryModule } from '../../shared/observability/load-telemetry.ts';
import { gatewayMetricNames } from '../../shared/observability/metric-names.ts';
import type { DynamoStore } from '../../shared/store/dynamodb/dynamo-store.ts';
import { ensureTable } from '../../shared/store/dynamodb/ensure-tables.ts';
import { earlierUsageTable, tableEnvironment, tableEnvironmentVariable } from '../../shared/store/table-definitions.ts';
import type { UsageRecord } from '../../shared/store/usage-records.ts';
import { estimateRequestTokenCount } from '../../shared/tokens/estimate-token-count.ts';
import { type FakeBedrock, fakeAwsCredentials, startFakeBedrock } from '../support/fake-bedrock.ts';
import { createStreamGate, type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';
import { startTestStore } from '../support/test-store.ts';
import { allRecords } from '../support/usage-records.ts';
import {
  installAwsLambdaStub,
  invokeScheduled,
  invokeStreaming,
  loadBundleHandler,
  RecordingResponseStream,
  type StreamedAnswer,
} from './bundle-invocation.ts';
import type { TemplateResources } from './template-queries.ts';

/**
 * `npx cdk synth` as a deployer runs it (the CLI, cdk.json, infra/app.ts with cdk-nag, esbuild bundling), with
 * every TCP connection refused and recorded; then the bundles it built answer requests under a stubbed `awslambda`.
 */
const projectRoot = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const stage = 'test';
const synthTimeoutMs = 180_000;

/** A request the earlier layout recorded, long settled. */
const earlierRecord: UsageRecord = {
  id: 'req_earlier_bundle',
  memberId: 'mem_earlier_bundle',
  keyId: 'key_earlier_bundle',
  provider: 'openai',
  model: 'openai/m',
  connectionId: 'con_earlier',
  upstream: 'lb',
  wire: 'openai-chat',
  stream: false,
  startedAt: '2025-04-01T09:00:00.000Z',
  day: '2025-04-01',
  reserved: 500,
  state: 'completed',
  status: 200,
  endedAt: '2025-04-01T09:00:01.000Z',
  durationMs: 1_000,
  inputTokens: 10,
  cachedInputTokens: null,
  outputTokens: 5,
  charge: 15,
  source: 'measured',
};

let outputDirectory: string;
let synth: { code: number | null; stderr: string; durationMs: number; networkAttempts: string };
let resources: TemplateResources;

beforeAll(async () => {
  outputDirectory = await mkdtemp(join(tmpdir(), 'cdk-synth-'));
  const attemptsFile = join(outputDirectory, 'network-attempts.log');
  const environment: NodeJS.ProcessEnv = { ...process.env };
  // No credentials, no profile and no instance metadata: the CLI must not need an account to synthesize.
  for (const name of Object.keys(environment)) if (name.startsWith('AWS_')) delete environment[name];
  Object.assign(environment, {
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DISABLE_VERSION_CHECK: '1',
    NODE_OPTIONS: `${environment['NODE_OPTIONS'] ?? ''} --require ${join(projectRoot, 'test/infra/refuse-network.cjs')}`,
    NETWORK_ATTEMPTS_FILE: attemptsFile,
  });
  const started = Date.now();
  const child = spawn('npx', ['cdk', 'synth', '--quiet', '-c', `stage=${stage}`, '--output', outputDirectory], {
    cwd: projectRoot,
    env: environment,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cdk synth took longer than ${synthTimeoutMs} ms:\n${stderr}`));
    }, synthTimeoutMs - 5_000);
    child.once('error', reject);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  synth = {
    code,
    stderr,
    durationMs: Date.now() - started,
    networkAttempts: existsSync(attemptsFile) ? readFileSync(attemptsFile, 'utf8') : '',
  };
  const templatePath = join(outputDirectory, `${stackNameFor(stage)}.template.json`);
  resources = existsSync(templatePath)
    ? (JSON.parse(readFileSync(templatePath, 'utf8')) as { Resources: TemplateResources }).Resources
    : {};
}, synthTimeoutMs);

afterAll(async () => {
  await rm(outputDirectory, { recursive: true, force: true });
});

/** The folder of a function's built bundle, found through the construct path CDK records on each resource. */
function bundleOf(functionId: string): string {
  const suffix = `/${pascalCase(functionId)}/Function/Resource`;
  const entry = Object.entries(resources).find(
    ([, resource]) =>
      resource.Type === 'AWS::Lambda::Function' &&
      String((resource as { Metadata?: Record<string, unknown> }).Metadata?.['aws:cdk:path']).endsWith(suffix),
  );
  if (!entry) throw new Error(`the template has no function ${functionId}`);
  const code = entry[1].Properties['Code'] as { S3Key: string };
  return join(outputDirectory, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
}

describe('npx cdk synth', () => {
  it('synthesizes offline, with cdk-nag passing', () => {
    expect(synth.networkAttempts).toBe('');
    // cdk-nag runs in infra/app.ts and fails synthesis on an unacknowledged error; gateway-permissions.test.ts runs
    // the same checks on the same stack and names every unacknowledged finding, warnings included.
    expect(synth.code, synth.stderr).toBe(0);
    // Recorded for the report: synthesis bundles every function with esbuild.
    console.info(`cdk synth took ${synth.durationMs} ms`);
  });

  it.each([...functionIds, ...backgroundFunctionIds])(
    '%s is bundled as ESM exporting handler, with a require shim and a source map',
    (functionId) => {
      const bundle = readFileSync(join(bundleOf(functionId), 'index.mjs'), 'utf8');
      expect(bundle.startsWith("import { createRequire } from 'module';")).toBe(true);
      // Lambda calls the `handler` export named in the function's configuration.
      expect(bundle).toMatch(/export\s*\{[^}]*\bhandler\s*\}/);
      expect(existsSync(join(bundleOf(functionId), 'index.mjs.map'))).toBe(true);
    },
  );

  it.each([...functionIds, ...backgroundFunctionIds])(
    '%s carries the environment credential provider, not the SDK default chain',
    (functionId) => {
      const everyFile = codeOf(functionId, bundleFilesOf(functionId));
      // infra/lambda-credentials.ts replaces the chain; these names appear only in its SSO, profile and web
      // identity steps.
      for (const chainOnly of ['sso_start_url', 'credential_process', 'AWS_WEB_IDENTITY_TOKEN_FILE']) {
        expect(everyFile).not.toContain(chainOnly);
      }
      expect(codeOf(functionId, initFilesOf(functionId))).toContain('AWS_SECRET_ACCESS_KEY');
    },
  );

  /** The functions that read Bedrock's event streams (shared/wires/bedrock/), and so carry the frame codec. */
  const bedrockCallers = new Set<string>(['chat-completions', 'responses', 'messages', 'count-tokens', 'admin']);

  it.each([...functionIds, ...backgroundFunctionIds])(
    "%s leaves out the SDK's event-stream serde, and carries the frame codec only where it reads Bedrock, outside what init loads",
    (functionId) => {
      const everyFile = codeOf(functionId, bundleFilesOf(functionId));
      // infra/lambda-event-streams.ts stands in for the serde; these header names appear only in the codec.
      if (bedrockCallers.has(functionId)) expect(everyFile).toContain(':message-type');
      else expect(everyFile).not.toContain(':message-type');
      expect(everyFile).toContain('event-stream codec is not bundled');
      // Bedrock's code is loaded on the first Bedrock request (shared/translation/client-reach/bedrock-reach.ts).
      expect(codeOf(functionId, initFilesOf(functionId))).not.toContain(':message-type');
    },
  );

  it.each([...functionIds, ...backgroundFunctionIds])(
    '%s is built split: index.mjs, the chunks it imports, and a source map beside each file',
    (functionId) => {
      const files = bundleFilesOf(functionId);
      expect(initFilesOf(functionId)[0]).toBe('index.mjs');
      for (const file of initFilesOf(functionId)) expect(files).toContain(file);
      // The budget test counts these files (test/infra/lambda-bundle-budget.test.ts, with the same build).
      for (const file of files) expect(existsSync(join(bundleOf(functionId), `${file}.map`))).toBe(true);
    },
  );
});

/** Every file of a function's code in its asset (the entry and its chunks; not the OpenTelemetry module). */
function bundleFilesOf(functionId: string): string[] {
  const folder = bundleOf(functionId);
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.mjs') && file !== telemetryBundleFile)
    .sort();
}

/** The files a cold start loads: index.mjs and what it imports statically, transitively (esbuild writes `./chunks/…`). */
function initFilesOf(functionId: string): string[] {
  const folder = bundleOf(functionId);
  const reached: string[] = [];
  const pending = ['index.mjs'];
  for (let file = pending.shift(); file !== undefined; file = pending.shift()) {
    if (reached.includes(file)) continue;
    reached.push(file);
    const code = readFileSync(join(folder, file), 'utf8');
    for (const match of code.matchAll(/(?:\bfrom|\bimport)\s*"(\.{1,2}\/[^"]+\.mjs)"/g)) {
      pending.push(join(dirname(file), match[1] as string));
    }
  }
  return reached;
}

function codeOf(functionId: string, files: readonly string[]): string {
  return files.map((file) => readFileSync(join(bundleOf(functionId), file), 'utf8')).join('\n');
}

describe('the OpenTelemetry module beside each entry that answers HTTP', () => {
  it.each(functionIds)('%s loads it only from its own file, which builds working telemetry', async (functionId) => {
    const entry = readFileSync(join(bundleOf(functionId), 'index.mjs'), 'utf8');
    const telemetryFile = join(bundleOf(functionId), telemetryBundleFile);
    // The metric name is the SDK module's own: the entry's bundle does not carry the SDK.
    expect(entry).not.toContain('gen_ai.client.token.usage');
    expect(entry).toContain(telemetryBundleFile);
    expect(readFileSync(telemetryFile, 'utf8')).toContain('gen_ai.client.token.usage');
    const telemetryModule = (await import(pathToFileURL(telemetryFile).href)) as TelemetryModule;
    const receiver = await startOtlpReceiver();
    const telemetry = telemetryModule.createOtelTelemetry(
      {
        traces: { url: `${receiver.url}/v1/traces`, protocol: 'http/protobuf', headers: {} },
        metrics: undefined,
        serviceName: 'model-gateway',
        resourceAttributes: {},
        sampler: { name: 'always_on', ratio: 1 },
        metricExportIntervalMs: 60_000,
        propagateUpstream: false,
      },
      'test',
    );
    telemetry
      .startRequest({ headers: {}, clientWire: 'openai-chat' })
      .refused({ status: 400, code: 'invalid_request' });
    await telemetry.shutdown();
    await receiver.close();
    expect(receiver.exports.map((exported) => exported.contentType)).toEqual(['application/x-protobuf']);
    expect(receiver.everyByte().toString('latin1')).toContain('invalid_request');
  });
});

describe('the built bundles under a stubbed awslambda global', () => {
  let store: Awaited<ReturnType<typeof startTestStore>>;
  let upstream: FakeUpstream;
  let bedrock: FakeBedrock;
  let adminKey: string;
  let adminMemberId: string;
  let secretsDirectory: string;
  const emitted: string[] = [];
  const handlers = new Map<string, unknown>();
  // What CloudFront adds to every request it sends a function.
  const originSecret = 'bundle-test-origin-secret-value';
  const throughCloudFront = { [originSecretHeader]: originSecret };

  beforeAll(async () => {
    store = await startTestStore('dynalite');
    upstream = await startFakeUpstream();
    bedrock = await startFakeBedrock();
    secretsDirectory = await mkdtemp(join(tmpdir(), 'bundle-secrets-'));
    const issued = await bootstrapAdministrator(store.services, undefined);
    if (!issued.issuedKey) throw new Error('no admin key issued');
    adminKey = issued.issuedKey;
    adminMemberId = issued.adminMemberId;

    // The origin secrets the stack generates, here in the local secret file the functions read instead.
    await writeFile(
      join(secretsDirectory, 'secrets.json'),
      JSON.stringify({ 'origin/a': originSecret, 'origin/b': 'the-other-slot-value' }),
      { mode: 0o600 },
    );
    // A stage upgraded from the earlier layout: its records table, with one record the migration is to carry.
    const tableClient = new DynamoDBClient({
      region: 'local',
      endpoint: store.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await ensureTable(tableClient, localEarlierUsageTable, earlierUsageTable);
    tableClient.destroy();
    await (store.store as DynamoStore).client.send(
      new PutCommand({ TableName: localEarlierUsageTable, Item: earlierRecord }),
    );
    // The environment the stack gives a function, pointed at the embedded store and a local secret file.
    const environment: Record<string, string> = {
      ...tableEnvironment(localTableNames),
      [tableEnvironmentVariable('earlierUsage')]: localEarlierUsageTable,
      GATEWAY_DYNAMODB_ENDPOINT: store.endpoint as string,
      AWS_REGION: 'eu-west-1',
      GATEWAY_SECRET_STORE: 'file',
      GATEWAY_SECRET_FILE: join(secretsDirectory, 'secrets.json'),
      GATEWAY_CACHE_TTL_MS: '0',
      GATEWAY_METRICS_NAMESPACE: `ModelGateway/${stage}`,
      GATEWAY_ORIGIN_SECRET_IDS: 'origin/a,origin/b',
      // The function role's credentials, as Lambda's environment gives them; Bedrock requests are signed with them.
      AWS_ACCESS_KEY_ID: fakeAwsCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: fakeAwsCredentials.secretAccessKey,
      AWS_SESSION_TOKEN: fakeAwsCredentials.sessionToken,
    };
    for (const [name, value] of Object.entries(environment)) vi.stubEnv(name, value);
    // Powertools writes EMF lines to standard output, where CloudWatch Logs would read them.
    const write = process.stdout.write.bind(process.stdout);
    const capture = (
      chunk: string | Uint8Array,
      encoding?: BufferEncoding,
      callback?: (error?: Error | null) => void,
    ): boolean => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (!text.includes('"_aws"')) return write(chunk, encoding, callback);
      emitted.push(text);
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture as typeof process.stdout.write);

    installAwsLambdaStub();
    for (const functionId of [...functionIds, ...backgroundFunctionIds]) {
      handlers.set(functionId, await loadBundleHandler(join(bundleOf(functionId), 'index.mjs')));
    }
  }, 60_000);

  afterAll(async () => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    await upstream?.close();
    await bedrock?.close();
    await store?.close();
    await rm(secretsDirectory, { recursive: true, force: true });
  });

  const call = (functionId: FunctionId, request: Parameters<typeof invokeStreaming>[1]): Promise<StreamedAnswer> =>
    invokeStreaming(handlers.get(functionId), {
      ...request,
      headers: { authorization: `Bearer ${adminKey}`, ...throughCloudFront, ...request.headers },
    });

  it.each(functionIds)('%s refuses a request that did not come through CloudFront', async (functionId) => {
    const answer = await invokeStreaming(handlers.get(functionId), {
      method: 'GET',
      path: '/v1/models',
      headers: { authorization: `Bearer ${adminKey}`, [originSecretHeader]: 'guessed' },
    });
    expect(answer.statusCode).toBe(403);
    expect(answer.body).toContain('origin_refused');
  });

  it('admin stores a connection for each upstream wire', async () => {
    for (const [provider, wire, model, basePath] of [
      ['openai', 'openai-chat', 'gpt-chat', '/v1'],
      ['openai', 'openai-responses', 'gpt-responses', '/v1'],
      ['anthropic', 'anthropic-messages', 'claude-test', '/v1'],
      ['google', 'gemini', 'gemini-test', '/v1beta'],
    ] as const) {
      const answer = await call('admin', {
        method: 'POST',
        path: '/admin/v1/connections',
        body: {
          provider,
          wire,
          baseUrl: `${upstream.url}${basePath}`,
          models: [model],
          apiKey: 'provider-secret',
          // The fake provider is on loopback, which a function reaches only through a connection marked so.
          privateNetwork: true,
        },
      });
      expect(answer.statusCode, answer.body).toBe(201);
    }
  });

  // Bedrock's code is a file of its own beside each entry, loaded on the first Bedrock request: signed with the
  // role's credentials, its binary event stream decoded, from the built asset as Lambda would run it.
  it('messages and chat-completions answer from Bedrock through the lazily loaded Bedrock module', async () => {
    const bedrockModel = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
    const created = await call('admin', {
      method: 'POST',
      path: '/admin/v1/connections',
      body: {
        provider: 'bedrock',
        wire: 'bedrock',
        region: 'us-west-2',
        baseUrl: bedrock.url,
        models: [bedrockModel],
        privateNetwork: true,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const streamed = await call('messages', {
      method: 'POST',
      path: '/v1/messages',
      body: {
        model: `bedrock/${bedrockModel}`,
        max_tokens: 32,
        stream: true,
        messages: [{ role: 'user', content: 'hello' }],
      },
    });
    expect(streamed.statusCode, streamed.body).toBe(200);
    expect(streamed.body).toContain('event: message_stop');
    const chat = await call('chat-completions', {
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: `bedrock/${bedrockModel}`, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(chat.statusCode, chat.body).toBe(200);
    expect(JSON.parse(chat.body)).toHaveProperty('choices');
    expect(bedrock.requests.map((request) => [request.operation, request.refusedAs])).toEqual([
      ['invoke-with-response-stream', undefined],
      ['invoke', undefined],
    ]);
    expect(bedrock.requests[0]?.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=/);
  });

  it('admin refuses a loopback base URL not marked as a private network, as on AWS', async () => {
    const answer = await call('admin', {
      method: 'POST',
      path: '/admin/v1/connections',
      body: { provider: 'openai', wire: 'openai-chat', baseUrl: `${upstream.url}/v1`, apiKey: 'provider-secret' },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toContain('invalid_base_url');
  });

  it('models lists the catalog', async () => {
    const answer = await call('models', { method: 'GET', path: '/v1/models' });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.body).toContain('openai/gpt-chat');
  });

  it('chat-completions answers through the upstream and settles before the invocation ends', async () => {
    const answer = await call('chat-completions', {
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'openai/gpt-chat', messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toHaveProperty('choices');
    expect(upstream.requests.at(-1)?.headers['authorization']).toBe('Bearer provider-secret');
    const requestId = answer.headers['x-request-id'];
    const recent = await store.store.records.newest({
      from: new Date(Date.now() - 86_400_000).toISOString(),
      to: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(recent.records.find((record) => record.id === requestId)?.state).toBe('completed');
  });

  // Cancellation on Lambda: the function learns that its client is gone only from its response stream, which
  // errors and closes (the runtime client destroys it when the runtime API aborts the response). The bundle must
  // abort the upstream then, before the first byte as mid-stream, and settle before the invocation returns.
  const cancelledChat = (body: unknown) => ({
    method: 'POST' as const,
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${adminKey}`, ...throughCloudFront },
    body,
  });
  const clientGone = () => Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
  async function expectSettledAndReleased(): Promise<void> {
    expect((await allRecords(store.services)).filter((record) => record.state === 'running')).toEqual([]);
    expect((await store.services.store.admission.account(adminMemberId))?.leases).toEqual({});
  }

  it('chat-completions aborts an upstream that has not answered when the response stream errors', async () => {
    upstream.nextResponse({ type: 'hang' });
    const index = upstream.requests.length;
    const stream = new RecordingResponseStream();
    const invocation = invokeStreaming(
      handlers.get('chat-completions'),
      cancelledChat({ model: 'openai/gpt-chat', messages: [{ role: 'user', content: 'wait' }] }),
      stream,
    ).catch((error: unknown) => error);
    await upstream.waitForRequest(index);
    stream.destroy(clientGone());
    await invocation;
    expect((await upstream.waitForClientClose(index)).clientClosedEarly).toBe(true);
    // Settled by the time the invocation returned, so a frozen environment loses nothing.
    await expectSettledAndReleased();
  });

  it('chat-completions aborts a streaming upstream when the response stream errors mid-stream', async () => {
    const gate = createStreamGate();
    upstream.nextResponse({ type: 'answer', gate, textChunks: ['one ', 'two ', 'three ', 'four'] });
    const index = upstream.requests.length;
    const stream = new RecordingResponseStream();
    const invocation = invokeStreaming(
      handlers.get('chat-completions'),
      cancelledChat({ model: 'openai/gpt-chat', messages: [{ role: 'user', content: 'stream' }], stream: true }),
      stream,
    ).catch((error: unknown) => error);
    gate.release(2);
    await vi.waitFor(() => expect(stream.chunks.length).toBeGreaterThan(0));
    stream.destroy(clientGone());
    await invocation;
    expect((await upstream.waitForClientClose(index)).clientClosedEarly).toBe(true);
    await expectSettledAndReleased();
    const [record] = (await allRecords(store.services)).toSorted((a, b) => b.startedAt.localeCompare(a.startedAt));
    expect(record).toMatchObject({ state: 'failed', source: 'conservative' });
  });

  it('responses answers through the upstream', async () => {
    const answer = await call('responses', {
      method: 'POST',
      path: '/lb/v1/responses',
      body: { model: 'openai/gpt-responses', input: 'hello' },
    });
    expect(answer.statusCode, answer.body).toBe(200);
  });

  it('messages answers through the upstream, with the key in x-api-key', async () => {
    const answer = await invokeStreaming(handlers.get('messages'), {
      method: 'POST',
      path: '/v1/messages',
      headers: { 'x-api-key': adminKey, 'anthropic-version': '2023-06-01', ...throughCloudFront },
      body: { model: 'anthropic/claude-test', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(answer.statusCode, answer.body).toBe(200);
  });

  it('count-tokens answers through the upstream', async () => {
    const answer = await call('count-tokens', {
      method: 'POST',
      path: '/v1/messages/count_tokens',
      body: { model: 'anthropic/claude-test', messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toHaveProperty('input_tokens');
  });

  it('generate-content answers through the upstream, with the key in x-goog-api-key', async () => {
    const answer = await invokeStreaming(handlers.get('generate-content'), {
      method: 'POST',
      path: '/v1beta/models/google/gemini-test:generateContent',
      headers: { 'x-goog-api-key': adminKey, ...throughCloudFront },
      body: { contents: [{ role: 'user', parts: [{ text: 'hello' }] }] },
    });
    expect(answer.statusCode, answer.body).toBe(200);
  });

  it('count-tokens counts natively on a generate-content connection and estimates for any other', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'hello there, how are you?' }] }] };
    const native = await call('count-tokens', {
      method: 'POST',
      path: '/v1beta/models/google/gemini-test:countTokens',
      body,
    });
    expect(native.statusCode, native.body).toBe(200);
    expect(native.headers[tokenCountSourceHeader]).toBe('upstream');
    const estimated = await call('count-tokens', { method: 'POST', path: '/v1beta/openai/gpt-chat:countTokens', body });
    expect(estimated.statusCode, estimated.body).toBe(200);
    expect(estimated.headers[tokenCountSourceHeader]).toBe('estimate');
    expect(JSON.parse(estimated.body)).toEqual({ totalTokens: estimateRequestTokenCount(body) });
  });

  it('models answers the Google model list and the holder policy with the host the viewer called', async () => {
    const list = await call('models', { method: 'GET', path: '/v1beta/models' });
    expect(list.statusCode, list.body).toBe(200);
    expect(JSON.parse(list.body).models).toContainEqual(expect.objectContaining({ name: 'models/google/gemini-test' }));
    const record = await call('models', {
      method: 'GET',
      path: '/v1/holder-policy',
      headers: { [viewerHostHeader]: 'gateway.example.com' },
    });
    expect(record.statusCode, record.body).toBe(200);
    expect(JSON.parse(record.body)).toMatchObject({
      model_id: 'beta-beta-4-31b',
      endpoint: 'https://gateway.example.com',
    });
  });

  it('usage reports the team traffic to an administrator', async () => {
    const answer = await call('usage', {
      method: 'GET',
      path: '/usage-api/v1/summary',
      query: 'period=today&scope=team',
    });
    expect(answer.statusCode, answer.body).toBe(200);
  });

  it('answers a path no route serves with the gateway 404', async () => {
    const answer = await call('models', { method: 'GET', path: '/v2/anything' });
    expect(answer.statusCode).toBe(404);
    expect(answer.body).toContain('unknown_route');
  });

  it('reaper runs a pass on its schedule', async () => {
    expect(await invokeScheduled(handlers.get('reaper'))).toEqual({ reaped: 0 });
  });

  it('migrate-earlier-records carries the earlier records on its schedule, then waits out the earlier code', async () => {
    expect(await invokeScheduled(handlers.get('migrate-earlier-records'))).toMatchObject({
      state: 'waiting',
      step: 'sweep',
      scannedRecords: 1,
      carriedRecords: 1,
    });
    expect(await store.store.records.get(earlierRecord)).toEqual(earlierRecord);
  });

  it('emitted EMF metrics for responses, settlements and the reaper pass', () => {
    const metricNames = emitted.flatMap((line) =>
      (
        JSON.parse(line) as { _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string }[] }[] } }
      )._aws.CloudWatchMetrics.flatMap((directive) => {
        expect(directive.Namespace).toBe(`ModelGateway/${stage}`);
        return directive.Metrics.map((metric) => metric.Name);
      }),
    );
    for (const name of [
      gatewayMetricNames.responses,
      gatewayMetricNames.serverErrorResponses,
      gatewayMetricNames.settledRequests,
      gatewayMetricNames.inputTokens,
      gatewayMetricNames.outputTokens,
      gatewayMetricNames.reapedRequests,
    ]) {
      expect(metricNames).toContain(name);
    }
    // Metadata only: neither the prompt nor the keys reach the metrics.
    expect(emitted.join('')).not.toContain('hello');
    expect(emitted.join('')).not.toContain(adminKey);
  });
});
