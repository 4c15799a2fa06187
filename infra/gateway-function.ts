import { join } from 'node:path';
import { ArnFormat, type Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, type FunctionUrl, FunctionUrlAuthType, InvokeMode, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** Lets bundled CommonJS dependencies call `require` inside the ESM output. */
const requireShimBanner = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export interface GatewayFunctionProps {
  /** Absolute path of the entry file; it exports `handler`. */
  readonly entry: string;
  /** Absolute path of the folder holding package.json, package-lock.json and tsconfig.json. */
  readonly projectRoot: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly reservedConcurrentExecutions?: number;
  readonly environment: Readonly<Record<string, string>>;
  /** Whether the function answers HTTP itself, through a streaming function URL. */
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
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        // The esbuild in node_modules is pinned by the lock file; Docker would build with whatever image it pulls.
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: requireShimBanner,
        minify: true,
        sourceMap: true,
        // Stack traces need only the mappings; the sources would double the asset that every cold start loads.
        sourcesContent: false,
        // The SDK version the tests ran against, not whichever one the runtime happens to carry.
        bundleAwsSDK: true,
      },
    });

    // No IAM auth: clients are model SDKs that send a gateway key (Bearer, x-api-key or x-goog-api-key), which the
    // pipeline checks on every request; none of them signs with SigV4, and CloudFront's origin access control
    // cannot sign POST bodies for a function URL without the client sending a payload hash.
    this.functionUrl = props.functionUrl
      ? this.function.addFunctionUrl({ authType: FunctionUrlAuthType.NONE, invokeMode: InvokeMode.RESPONSE_STREAM })
      : undefined;
  }

  grantTableRead(table: ITable): void {
    table.grantReadData(this.function);
  }

  grantTableReadWrite(table: ITable): void {
    table.grantReadWriteData(this.function);
  }

  /** Reading provider credentials stored under `<namePrefix>/`. */
  grantSecretRead(namePrefix: string): void {
    this.function.addToRolePolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.secretsUnder(namePrefix)] }),
    );
  }

  /** Storing provider credentials under `<namePrefix>/` without being able to read them back. */
  grantSecretWrite(namePrefix: string): void {
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:CreateSecret', 'secretsmanager:PutSecretValue', 'secretsmanager:DescribeSecret'],
        resources: [this.secretsUnder(namePrefix)],
      }),
    );
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
