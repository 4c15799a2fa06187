import { join } from 'node:path';
import { ArnFormat, type CfnElement, type Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type FunctionUrl, FunctionUrlAuthType, InvokeMode, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { DynamoAction, SecretAction } from './function-permissions.ts';
import { lambdaBundling } from './lambda-bundling.ts';
import { splitBundleCommand } from './lambda-split-bundle.ts';
import { nagAccount, nagRegion } from './nag-acknowledgements.ts';
import { telemetryBundleCommands } from './telemetry-bundle.ts';

export interface GatewayFunctionProps {
  /** Absolute path of the entry file; it exports `handler`. */
  readonly entry: string;
  /** Absolute path of the folder holding package.json, package-lock.json and tsconfig.json. */
  readonly projectRoot: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly reservedConcurrentExecutions?: number;
  readonly environment: Readonly<Record<string, string>>;
  /** Whether the function answers HTTP itself, through a streaming function URL (the reaper has none). */
  readonly functionUrl: boolean;
  readonly logRemovalPolicy: RemovalPolicy;
}

/**
 * A gateway function with the defaults every function shares, and grants that name exactly what it may touch:
 * nothing is granted by default.
 */
export class GatewayFunction extends Construct {
  readonly function: NodejsFunction;
  readonly functionUrl: FunctionUrl | undefined;

  constructor(scope: Construct, id: string, props: GatewayFunctionProps) {
    super(scope, id);

    const logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy,
    });
    // A role of its own instead of the managed basic-execution policy, which may write to every log group of the
    // account: this one may write to its own group only, and everything else is granted below by name.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      logGroup,
      role,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        // The esbuild in node_modules is pinned by the lock file; Docker would build with whatever image it pulls.
        forceDockerBundling: false,
        ...lambdaBundling,
        // OutputFormat's values are esbuild's format names.
        format: lambdaBundling.format as OutputFormat,
        mainFields: [...lambdaBundling.mainFields],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_inputDirectory: string, outputDirectory: string) => [
            // The entry again, split: what only some requests need leaves the file a cold start loads
            // (infra/lambda-split-bundle.ts).
            splitBundleCommand(props.projectRoot, props.entry, outputDirectory),
            // Functions that answer HTTP trace their requests when the stage configures OpenTelemetry: its module
            // is built beside the entry, not into it (infra/telemetry-bundle.ts).
            ...(props.functionUrl ? telemetryBundleCommands(props.projectRoot, outputDirectory) : []),
          ],
        },
      },
    });

    // No IAM auth: clients are model SDKs that send a gateway key (Bearer, x-api-key or x-goog-api-key), none of
    // them signs with SigV4, and CloudFront's origin access control cannot sign POST bodies for a function URL
    // without the client sending a payload hash. What keeps the URL private is the origin secret CloudFront adds
    // and every entry checks first (shared/http/origin-check.ts); no stack output names the URL.
    this.functionUrl = props.functionUrl
      ? this.function.addFunctionUrl({ authType: FunctionUrlAuthType.NONE, invokeMode: InvokeMode.RESPONSE_STREAM })
      : undefined;
  }

  /**
   * Exactly these actions on one table (infra/function-permissions.ts); a Query also reaches the table's indexes,
   * which is where the store queries.
   */
  grantTable(table: ITable, actions: readonly DynamoAction[]): void {
    const queries = actions.includes('dynamodb:Query');
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: [...actions],
        resources: queries ? [table.tableArn, `${table.tableArn}/index/*`] : [table.tableArn],
      }),
    );
    if (queries) this.acknowledgeIndexWildcard(table);
  }

  /** Exactly these actions on the provider credentials stored under `<namePrefix>/`. */
  grantProviderCredentials(namePrefix: string, actions: readonly SecretAction[]): void {
    if (actions.length === 0) return;
    this.function.addToRolePolicy(
      new PolicyStatement({ actions: [...actions], resources: [this.secretsUnder(namePrefix)] }),
    );
    this.acknowledgeSecretWildcard(namePrefix);
  }

  /**
   * cdk-nag's AwsSolutions-IAM5 flags the `<table ARN>/index/*` that a DynamoDB grant adds; it names the indexes
   * of that one table only, which the store queries (the kind, member-time and day-time indexes).
   */
  private acknowledgeIndexWildcard(table: ITable): void {
    const tableResource = table.node.defaultChild as CfnElement | undefined;
    if (!tableResource) return;
    Validations.of(this).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(table).getLogicalId(tableResource)}.Arn>/index/*]`,
      reason: 'The wildcard covers the global secondary indexes of this one table, which the store queries.',
    });
  }

  /**
   * Reads one secret the team creates by name (the OpenTelemetry collector's headers): its ARN ends in the six
   * random characters Secrets Manager appends, which `-??????` matches and nothing longer does.
   */
  grantSecretRead(name: string): void {
    const resource = Stack.of(this).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${name}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.function.addToRolePolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [resource] }),
    );
    Validations.of(this).acknowledge({
      id:
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:${nagRegion(Stack.of(this))}:` +
        `${nagAccount(Stack.of(this))}:secret:${name}-??????]`,
      reason: 'The six characters Secrets Manager appends to a secret ARN; the name itself is exact.',
    });
  }

  /** cdk-nag's AwsSolutions-IAM5 flags the secret prefix; see `secretsUnder` for why it must be a wildcard. */
  private acknowledgeSecretWildcard(namePrefix: string): void {
    Validations.of(this).acknowledge({
      id:
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:${nagRegion(Stack.of(this))}:` +
        `${nagAccount(Stack.of(this))}:secret:${namePrefix}/*]`,
      reason:
        'Connections and their secrets are created at run time by the admin API, and Secrets Manager appends a ' +
        "random suffix to every secret ARN; the wildcard is confined to this stage's prefix.",
    });
  }

  /** The wildcard also covers the random suffix Secrets Manager appends to every secret ARN. */
  private secretsUnder(namePrefix: string): string {
    return Stack.of(this).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${namePrefix}/*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }
}
