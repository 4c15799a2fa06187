/**
 * `gateway-admin bootstrap --stage NAME [--region R]`: the first administrator of a stage deployed on AWS.
 *
 * Every other command is a client of the admin API, and the admin API wants an admin key, which a fresh stage does
 * not have. So this one command goes around it: with the caller's AWS credentials it reads the stage's stack
 * outputs (DescribeStacks) and writes the administrator straight into the stage's control table, through the same
 * store code that bootstraps the local host (shared/admin/bootstrap-admin.ts). It is the CLI's one use of the
 * store, and why run-cli.ts loads this module only when the command is `bootstrap`; the only other imports of
 * shared/ are the pure rules for 0.1 usage records, so the CLI checks a file exactly as the server will, and
 * shared/validation/zod.ts, the one configured zod.
 */
import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStacksCommand, type Output } from '@aws-sdk/client-cloudformation';
import { stackNameFor, stackOutputKeys, stagePattern, tableOutputKey } from '../infra/stack-outputs.ts';
import { bootstrapAdministrator } from '../shared/admin/bootstrap-admin.ts';
import { parseGatewayConfig } from '../shared/config/gateway-config.ts';
import { createGatewayServices } from '../shared/config/gateway-services.ts';
import { createDynamoStore } from '../shared/store/dynamodb/dynamo-store.ts';
import { dynamoOptionsFromConfig } from '../shared/store/dynamodb/dynamo-store-from-config.ts';
import { tableDefinitions, tableEnvironmentVariable } from '../shared/store/table-definitions.ts';
import { AdminRequestError, UsageError } from './cli-errors.ts';
import type { CliIo } from './run-cli.ts';

export const bootstrapSynopsis = 'gateway-admin bootstrap --stage NAME [--region R] [--json]';

const helpText = `Usage: ${bootstrapSynopsis}

Creates the first administrator of a stage deployed with 'npm run deploy -- --context stage=NAME' and prints its
key once, with the GATEWAY_URL and GATEWAY_ADMIN_KEY to export for the other commands. Uses your AWS credentials
(the SDK's usual chain: environment, profile, SSO): cloudformation:DescribeStacks on the stage's stack, and
dynamodb:GetItem and PutItem on its control table. Running it again on a bootstrapped stage issues nothing.

Flags:
  --stage NAME  the stage given to the deployment (required)
  --region R    the stack's region (default: AWS_REGION, AWS_DEFAULT_REGION, then your profile's)
  --json        print the result as one JSON document
  -h, --help    show help
`;

/** What a deployed stage says about itself in its stack outputs. */
export interface DeployedStage {
  readonly stage: string;
  readonly region: string;
  readonly gatewayUrl: string;
  readonly usagePageUrl: string | undefined;
  readonly tableNames: Readonly<Record<string, string>>;
}

export interface BootstrapOutcome extends DeployedStage {
  readonly adminMemberId: string;
  /** The new administrator key, shown once; `null` when the stage already had its administrator. */
  readonly adminKey: string | null;
}

/** Parses the command line, bootstraps and prints; failures are thrown as `UsageError` or `AdminRequestError`. */
export async function runBootstrap(argv: readonly string[], io: CliIo): Promise<number> {
  const options = readOptions(argv);
  if (options === 'help') {
    io.stdout.write(helpText);
    return 0;
  }
  const region = options.region ?? (io.env['AWS_REGION']?.trim() || io.env['AWS_DEFAULT_REGION']?.trim() || undefined);
  const cloudFormation = new CloudFormationClient(region ? { region } : {});
  try {
    const outcome = await bootstrapStage(options.stage, cloudFormation);
    io.stdout.write(options.json ? `${JSON.stringify(outcome, null, 2)}\n` : renderOutcome(outcome));
    return 0;
  } finally {
    cloudFormation.destroy();
  }
}

/** Reads the stage's outputs and makes sure its control table has a first administrator. */
export async function bootstrapStage(stage: string, cloudFormation: CloudFormationClient): Promise<BootstrapOutcome> {
  const deployed = await describeStage(stage, cloudFormation);
  const environment: Record<string, string> = { AWS_REGION: deployed.region };
  for (const definition of tableDefinitions) {
    environment[tableEnvironmentVariable(definition.logicalName)] = deployed.tableNames[definition.logicalName] ?? '';
  }
  // The same configuration, store and services the functions build; the secret store is never touched.
  const config = parseGatewayConfig(environment);
  const services = createGatewayServices(config, createDynamoStore(dynamoOptionsFromConfig(config)));
  try {
    const result = await bootstrapAdministrator(services, undefined);
    return { ...deployed, adminMemberId: result.adminMemberId, adminKey: result.issuedKey ?? null };
  } catch (error) {
    if (!isAwsFailure(error)) throw error;
    throw new AdminRequestError(`could not write to the control table of stage ${stage}: ${describeAwsError(error)}`);
  } finally {
    await services.store.close();
  }
}

/** The stage's stack outputs; a stage that is not deployed, or lacks an output, is an `AdminRequestError`. */
export async function describeStage(stage: string, cloudFormation: CloudFormationClient): Promise<DeployedStage> {
  const stackName = stackNameFor(stage);
  let outputs: readonly Output[];
  try {
    const answer = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = answer.Stacks?.[0];
    if (!stack) throw new AdminRequestError(`CloudFormation returned no stack named ${stackName}`);
    outputs = stack.Outputs ?? [];
  } catch (error) {
    if (!isAwsFailure(error)) throw error;
    if (error instanceof Error && error.name === 'ValidationError' && /does not exist/.test(error.message)) {
      throw new AdminRequestError(
        `no stack ${stackName} in this region; deploy it with 'npm run deploy -- --context stage=${stage}' ` +
          'or pass the --region it was deployed to',
      );
    }
    throw new AdminRequestError(`could not read the outputs of ${stackName}: ${describeAwsError(error)}`);
  }
  const read = (key: string): string => {
    const value = outputs.find((output) => output.OutputKey === key)?.OutputValue;
    if (!value) throw new AdminRequestError(`${stackName} has no output ${key}; deploy the current version first`);
    return value;
  };
  return {
    stage: read(stackOutputKeys.stage),
    region: read(stackOutputKeys.region),
    gatewayUrl: read(stackOutputKeys.gatewayUrl),
    usagePageUrl: outputs.find((output) => output.OutputKey === stackOutputKeys.usagePageUrl)?.OutputValue,
    tableNames: Object.fromEntries(
      tableDefinitions.map((definition) => [definition.logicalName, read(tableOutputKey(definition.logicalName))]),
    ),
  };
}

function readOptions(argv: readonly string[]): { stage: string; region: string | undefined; json: boolean } | 'help' {
  let values: { stage?: string | undefined; region?: string | undefined; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        stage: { type: 'string' },
        region: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    if (error instanceof Error) throw new UsageError(`${error.message.replace(/\s*\n\s*/g, ' ')}; see --help`);
    throw error;
  }
  if (values.help) return 'help';
  const stage = values.stage?.trim();
  if (!stage) throw new UsageError('--stage is required: the stage name given to the deployment');
  if (!stagePattern.test(stage)) {
    throw new UsageError(
      `--stage must be lowercase letters, digits and hyphens, starting with a letter, got '${stage}'`,
    );
  }
  const region = values.region?.trim();
  if (region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) {
    throw new UsageError(`--region must be an AWS region such as eu-west-1, got '${region}'`);
  }
  return { stage, region, json: values.json === true };
}

function renderOutcome(outcome: BootstrapOutcome): string {
  const page = outcome.usagePageUrl ? `Usage page: ${outcome.usagePageUrl}\n` : '';
  if (outcome.adminKey === null) {
    return (
      `Stage ${outcome.stage} already has its first administrator (member ${outcome.adminMemberId}); no key was ` +
      `issued. An administrator issues further keys with 'gateway-admin key create --member ID'.\n` +
      `\nexport GATEWAY_URL=${outcome.gatewayUrl}\n${page}`
    );
  }
  return [
    `Created the first administrator of stage ${outcome.stage} (member ${outcome.adminMemberId}).`,
    'Its key is shown only this once; keep it in a password manager:',
    '',
    `export GATEWAY_URL=${outcome.gatewayUrl}`,
    `export GATEWAY_ADMIN_KEY=${outcome.adminKey}`,
    '',
    page,
  ].join('\n');
}

/**
 * A failure of AWS or of reaching it (service errors carry `$metadata`, network errors a `code`), as opposed to a
 * bug, which run-cli.ts lets propagate.
 */
function isAwsFailure(error: unknown): error is Error {
  return (
    error instanceof Error &&
    ('$metadata' in error || 'code' in error || error.name === 'CredentialsProviderError' || error.name === 'Error')
  );
}

/** The SDK's errors carry their code in `name`; credentials missing altogether read better spelled out. */
function describeAwsError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'CredentialsProviderError') return `no AWS credentials found (${error.message})`;
  if (/region is missing/i.test(error.message)) return 'no AWS region: pass --region or set AWS_REGION';
  return `${error.name}: ${error.message}`;
}
