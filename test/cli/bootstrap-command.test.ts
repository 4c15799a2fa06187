import { CloudFormationClient, DescribeStacksCommand, type Output } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { localTableNames } from '../../infra/local/open-local-store.ts';
import { stackOutputKeys, tableOutputKey } from '../../infra/stack-outputs.ts';
import { hashKeySecret } from '../../shared/auth/key-secret.ts';
import { tableDefinitions } from '../../shared/store/table-definitions.ts';
import { startTestStore, type TestStore } from '../support/test-store.ts';
import { runInProcess } from './cli-harness.ts';

// The real store engine stands in for the stage's DynamoDB; only DescribeStacks is stubbed. The SDK sends
// DynamoDB calls to AWS_ENDPOINT_URL_DYNAMODB, so the command runs exactly as it would against AWS.
let store: TestStore;
const cloudFormation = mockClient(CloudFormationClient);
const gatewayUrl = 'https://d111111abcdef8.cloudfront.net';

function stageOutputs(stage: string): Output[] {
  return [
    { OutputKey: stackOutputKeys.gatewayUrl, OutputValue: gatewayUrl },
    { OutputKey: stackOutputKeys.usagePageUrl, OutputValue: `${gatewayUrl}/app/usage` },
    { OutputKey: stackOutputKeys.stage, OutputValue: stage },
    { OutputKey: stackOutputKeys.region, OutputValue: 'eu-west-1' },
    ...tableDefinitions.map((definition) => ({
      OutputKey: tableOutputKey(definition.logicalName),
      OutputValue: localTableNames[definition.logicalName],
    })),
  ];
}

beforeAll(async () => {
  store = await startTestStore('dynalite');
});
afterAll(async () => {
  await store.close();
});
beforeEach(() => {
  cloudFormation.reset();
  vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', store.endpoint as string);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  // Nothing may fall back to the instance metadata service or a profile on this machine.
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  vi.stubEnv('AWS_PROFILE', '');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('gateway-admin bootstrap', () => {
  it('creates the first administrator of a deployed stage, once, from its stack outputs', async () => {
    cloudFormation
      .on(DescribeStacksCommand, { StackName: 'ModelGateway-alpha' })
      .resolves({ Stacks: [stack('ModelGateway-alpha', stageOutputs('alpha'))] });

    const first = await runInProcess(['bootstrap', '--stage', 'alpha', '--region', 'eu-west-1'], { env: {} });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain(`export GATEWAY_URL=${gatewayUrl}\n`);
    const adminKey = /^export GATEWAY_ADMIN_KEY=(sk-gw-\S+)$/m.exec(first.stdout)?.[1];
    if (!adminKey) throw new Error(`no admin key in ${first.stdout}`);

    // The key is one the gateway's own store code accepts, of an administrator.
    const lookup = await store.store.keys.findBySecretHash(hashKeySecret(adminKey));
    if (!lookup) throw new Error('the issued key is not in the control table');
    expect((await store.store.members.get(lookup.memberId))?.role).toBe('admin');

    const again = await runInProcess(['bootstrap', '--stage', 'alpha', '--json'], { env: { AWS_REGION: 'eu-west-1' } });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ stage: 'alpha', gatewayUrl, adminKey: null });

    const calls = cloudFormation.commandCalls(DescribeStacksCommand);
    expect(calls.map((call) => call.args[0].input)).toEqual([
      { StackName: 'ModelGateway-alpha' },
      { StackName: 'ModelGateway-alpha' },
    ]);
    expect(await calls[0]?.thisValue.config.region()).toBe('eu-west-1');
  });

  it('says how to deploy when the stage has no stack', async () => {
    const missing = new Error('Stack with id ModelGateway-beta does not exist');
    missing.name = 'ValidationError';
    Object.assign(missing, { $metadata: { httpStatusCode: 400 } });
    cloudFormation.on(DescribeStacksCommand).rejects(missing);

    const run = await runInProcess(['bootstrap', '--stage', 'beta', '--region', 'eu-west-1'], { env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "gateway-admin bootstrap: no stack ModelGateway-beta in this region; deploy it with 'npm run deploy -- --context stage=beta'",
    );
  });

  it('refuses a stack of an older version that lacks the outputs it needs', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [stack('ModelGateway-gamma', [{ OutputKey: stackOutputKeys.gatewayUrl, OutputValue: gatewayUrl }])],
    });
    const run = await runInProcess(['bootstrap', '--stage', 'gamma', '--region', 'eu-west-1'], { env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ModelGateway-gamma has no output Stage');
  });

  it.each([
    [[], '--stage is required'],
    [['--stage', 'Prod!'], '--stage must be lowercase'],
    [['--stage', 'prod', '--region', 'nowhere'], '--region must be an AWS region'],
    [['--stage', 'prod', '--verbose'], "Unknown option '--verbose'"],
  ])('refuses %j before calling AWS (exit 2)', async (flags, message) => {
    const run = await runInProcess(['bootstrap', ...flags], { env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(cloudFormation.calls()).toHaveLength(0);
  });

  it('prints its help without AWS credentials', async () => {
    const run = await runInProcess(['bootstrap', '--help'], { env: {} });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Usage: gateway-admin bootstrap --stage NAME/);
  });
});

function stack(name: string, outputs: Output[]) {
  return { StackName: name, StackStatus: 'CREATE_COMPLETE' as const, CreationTime: new Date(), Outputs: outputs };
}
