import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { parseGatewayConfig } from '../shared/config/gateway-config.ts';
import {
  type FunctionId,
  fallbackFunctionId,
  functionIds,
  routeTable,
  type StaticRouteDefinition,
  staticRoutes,
} from '../shared/http/route-table.ts';
import {
  type EarlierTableLogicalName,
  earlierUsageTable,
  type TableLogicalName,
  tableDefinitions,
  tableEnvironmentVariable,
} from '../shared/store/table-definitions.ts';
import { AlertDelivery, alertEventBus, alertEventSource, grantAlertEvents } from './alert-delivery.ts';
import { cloudFrontPathPatterns } from './cloudfront-path-patterns.ts';
import type { DeploymentSettings, EarlierRecordsTable } from './deployment-settings.ts';
import { type DynamoAction, functionPermissions } from './function-permissions.ts';
import {
  type FunctionAccess,
  type FunctionProfile,
  functionProfiles,
  reservedConcurrencyOf,
} from './function-profiles.ts';
import { GatewayAlarms } from './gateway-alarms.ts';
import { GatewayDistribution } from './gateway-distribution.ts';
import { GatewayFunction } from './gateway-function.ts';
import { createGatewayTable } from './gateway-table.ts';
import { acknowledgeNagFindings } from './nag-acknowledgements.ts';
import { type OriginSecretSlot, OriginSecrets, originSecretSlots } from './origin-secrets.ts';
import { pascalCase } from './pascal-case.ts';
import { type ScheduledFunctionId, scheduledFunctionIds, scheduledFunctionProfiles } from './scheduled-functions.ts';
import { stackOutputKeys, tableOutputKey } from './stack-outputs.ts';
import { StaticSite } from './static-site.ts';
import { StreamConsumer } from './stream-consumer.ts';
import { type StreamFunctionId, streamFunctionIds, streamFunctionProfiles } from './stream-functions.ts';
import { usagePageHeaders } from './usage-page-build.ts';

export interface GatewayStackProps extends StackProps {
  /** Names this deployment, so that several stages can share one account. */
  readonly stage: string;
  /** Protects data: tables get deletion protection and outlive the stack. */
  readonly production: boolean;
  /** The valid upstream prefixes, in order; without it functions use the configuration's default list. */
  readonly upstreamPrefixes?: readonly string[];
  /** The folder holding each static route's built files (see `writeUsagePage`). */
  readonly staticSiteSources: Readonly<Record<StaticRouteDefinition['build'], string>>;
  /** Reserved concurrency of each inference function; the others reserve their own smaller share. */
  readonly reservedConcurrency: number;
  /** Which origin-secret slot CloudFront sends (infra/origin-secrets.ts). */
  readonly originSecretSlot: OriginSecretSlot;
  /** Whether the stack still declares the earlier layout's records table (and migrates it), or has let it go. */
  readonly earlierRecords: EarlierRecordsTable;
  /** An AWS WAF web ACL (CLOUDFRONT scope, so in us-east-1) to attach to the distribution. */
  readonly webAclArn?: string;
  /** Who is e-mailed the stage's alerts and alarms; nobody without it (the alerts still go to EventBridge). */
  readonly alertEmail?: string | undefined;
  /** OpenTelemetry export (deployment-settings.ts); off without it. */
  readonly telemetry?: DeploymentSettings['telemetry'];
  /** `GATEWAY_OIDC_*` of sign-in with the team's provider (deployment-settings.ts), or none. */
  readonly signInEnvironment?: Readonly<Record<string, string>>;
}

/** The headers each static build is served with, the same ones the local host sends. */
const staticSiteHeaders: Readonly<Record<StaticRouteDefinition['build'], Readonly<Record<string, string>>>> = {
  'usage-page': usagePageHeaders,
};

/** A function URL and the CloudFront path patterns that should reach it. */
export interface FunctionOrigin {
  readonly functionId: FunctionId;
  readonly functionUrl: FunctionUrl;
  readonly pathPatterns: readonly string[];
}

/** The tables the gateway runs on, and the earlier layout's records table, which an upgrade keeps and reads. */
type TableName = TableLogicalName | EarlierTableLogicalName;

const projectRoot = dirname(dirname(fileURLToPath(import.meta.url)));

export class GatewayStack extends Stack {
  readonly tables: ReadonlyMap<TableName, Table>;
  readonly functions: ReadonlyMap<FunctionId, GatewayFunction>;
  /** What a CloudFront distribution needs to put every function under one host. */
  readonly origins: readonly FunctionOrigin[];
  /** Functions EventBridge runs on a schedule; no route reaches them. */
  readonly scheduledFunctions: ReadonlyMap<ScheduledFunctionId, GatewayFunction>;
  /** Functions a table's change stream runs (the rollup fold), with their dead-letter queues. */
  readonly streamFunctions: ReadonlyMap<StreamFunctionId, GatewayFunction>;
  readonly streamConsumers: ReadonlyMap<StreamFunctionId, StreamConsumer>;
  readonly gatewayDistribution: GatewayDistribution;
  readonly staticSites: readonly StaticSite[];
  readonly alarms: GatewayAlarms;
  readonly alertDelivery: AlertDelivery;
  readonly originSecrets: OriginSecrets;

  constructor(scope: Construct, id: string, props: GatewayStackProps) {
    super(scope, id, props);

    // The earlier records table, until retired: then it leaves the stack (and, retained, stays in the account).
    const kept = props.earlierRecords === 'kept';
    const tables = new Map<TableName, Table>(
      [...tableDefinitions, ...(kept ? [earlierUsageTable] : [])].map((definition) => [
        definition.logicalName,
        createGatewayTable(this, definition, props.production),
      ]),
    );
    const secretPrefix = `model-gateway/${props.stage}`;
    const metricsNamespace = `ModelGateway/${props.stage}`;
    const environment: Record<string, string> = {
      GATEWAY_SECRET_STORE: 'secrets-manager',
      GATEWAY_SECRET_PREFIX: secretPrefix,
      GATEWAY_METRICS_NAMESPACE: metricsNamespace,
      // Loopback and private ranges only for connections an administrator marked as reaching a private network.
      GATEWAY_PRIVATE_UPSTREAMS: 'marked-only',
      // Alerts are recorded as pending for the reaper to put on EventBridge (infra/alert-delivery.ts).
      GATEWAY_ALERT_EVENT_BUS: alertEventBus,
      GATEWAY_ALERT_EVENT_SOURCE: alertEventSource(props.stage),
    };
    for (const [name, table] of tables) environment[tableEnvironmentVariable(name)] = table.tableName;
    const telemetryHeadersSecret = `${secretPrefix}/otel-headers`;
    if (props.telemetry) {
      environment['OTEL_EXPORTER_OTLP_ENDPOINT'] = props.telemetry.endpoint;
      environment['OTEL_EXPORTER_OTLP_PROTOCOL'] = props.telemetry.protocol;
      if (props.telemetry.headersSecret) environment['GATEWAY_OTEL_HEADERS_SECRET'] = telemetryHeadersSecret;
    }
    const originSecrets = new OriginSecrets(this, 'OriginSecret', { activeSlot: props.originSecretSlot });
    environment['GATEWAY_ORIGIN_SECRET_IDS'] = originSecrets.secretIds().join(',');
    if (props.upstreamPrefixes) environment['GATEWAY_UPSTREAM_PREFIXES'] = props.upstreamPrefixes.join(',');
    Object.assign(environment, props.signInEnvironment ?? {});
    // The functions parse this same environment at cold start; a mistake should stop the deployment instead.
    parseGatewayConfig(environment);

    // Every function, with or without a route, is built here through the one construct and granted its access.
    const createFunction = (functionId: string, profile: FunctionProfile, functionUrl: boolean) => {
      const gatewayFunction = new GatewayFunction(this, pascalCase(functionId), {
        entry: join(projectRoot, 'functions', `${functionId}.ts`),
        projectRoot,
        memorySize: profile.memorySize,
        timeout: profile.timeout,
        reservedConcurrentExecutions: reservedConcurrencyOf(profile, props.reservedConcurrency),
        environment,
        functionUrl,
        logRemovalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
      grantAccess(gatewayFunction, profile.access, tables, secretPrefix, originSecrets);
      // Functions that answer HTTP trace their requests, and read the collector's headers from their one secret.
      if (functionUrl && props.telemetry?.headersSecret) gatewayFunction.grantSecretRead(telemetryHeadersSecret);
      return gatewayFunction;
    };

    const functions = new Map<FunctionId, GatewayFunction>();
    const origins: FunctionOrigin[] = [];
    for (const functionId of functionIds) {
      const profile = functionProfiles[functionId];
      const gatewayFunction = createFunction(
        functionId,
        profile,
        routeTable.some((route) => route.functionId === functionId),
      );
      functions.set(functionId, gatewayFunction);

      if (gatewayFunction.functionUrl) {
        origins.push({
          functionId,
          functionUrl: gatewayFunction.functionUrl,
          pathPatterns: cloudFrontPathPatterns(functionId),
        });
        // No output names a function URL: CloudFront is the only way in (shared/http/origin-check.ts).
      }
    }

    const scheduledFunctions = new Map<ScheduledFunctionId, GatewayFunction>();
    for (const functionId of scheduledFunctionIds) {
      if (functionId === 'migrate-earlier-records' && !kept) continue;
      const profile = scheduledFunctionProfiles[functionId];
      const gatewayFunction = createFunction(functionId, profile, false);
      new Rule(this, `${pascalCase(functionId)}Schedule`, {
        description: `Runs the ${functionId} of stage ${props.stage}`,
        schedule: Schedule.rate(profile.every),
        // The next run is the retry; EventBridge's own retries would only overlap with it.
        targets: [new LambdaFunction(gatewayFunction.function, { retryAttempts: 0 })],
      });
      scheduledFunctions.set(functionId, gatewayFunction);
    }

    const streamFunctions = new Map<StreamFunctionId, GatewayFunction>();
    const streamConsumers = new Map<StreamFunctionId, StreamConsumer>();
    for (const functionId of streamFunctionIds) {
      const profile = streamFunctionProfiles[functionId];
      const gatewayFunction = createFunction(functionId, profile, false);
      const table = tables.get(profile.table);
      if (!table) throw new Error(`the stack declares no ${profile.table} table`);
      streamFunctions.set(functionId, gatewayFunction);
      streamConsumers.set(
        functionId,
        new StreamConsumer(this, `${pascalCase(functionId)}Source`, { gatewayFunction, table, profile }),
      );
    }

    const staticSites = staticRoutes.map(
      (route) =>
        new StaticSite(this, pascalCase(route.id), {
          route,
          sourceDirectory: props.staticSiteSources[route.build],
          responseHeaders: staticSiteHeaders[route.build],
        }),
    );
    const gatewayDistribution = new GatewayDistribution(this, 'Gateway', {
      stage: props.stage,
      origins,
      fallbackFunctionId,
      staticSites,
      originSecretValue: originSecrets.activeValue(),
      webAclArn: props.webAclArn,
    });
    for (const site of staticSites) site.deployTo(gatewayDistribution.distribution);

    const reaper = scheduledFunctions.get('reaper');
    if (!reaper) throw new Error('the stack declares no reaper');
    const earlierMigration = scheduledFunctions.get('migrate-earlier-records');
    const alarms = new GatewayAlarms(this, 'Alarms', {
      metricsNamespace,
      functions: new Map<string, GatewayFunction>([...functions, ...scheduledFunctions, ...streamFunctions]),
      reaper,
      reaperPeriod: scheduledFunctionProfiles.reaper.every,
      ...(earlierMigration
        ? { earlierMigration, earlierMigrationPeriod: scheduledFunctionProfiles['migrate-earlier-records'].every }
        : {}),
      streamConsumers: [...streamFunctions].map(([functionId, gatewayFunction]) => ({
        functionId,
        gatewayFunction,
        deadLetters: (streamConsumers.get(functionId) as StreamConsumer).deadLetters,
      })),
    });

    const alertDelivery = new AlertDelivery(this, 'AlertDelivery', {
      stage: props.stage,
      alertEmail: props.alertEmail,
      alarmScopes: [alarms],
    });

    // What clients, browsers and the CLI's `bootstrap` need to know about this stage.
    const gatewayUrl = `https://${gatewayDistribution.distribution.distributionDomainName}`;
    new CfnOutput(this, stackOutputKeys.gatewayUrl, {
      value: gatewayUrl,
      description: 'The gateway address; the OpenAI SDK adds /v1, the Anthropic and Google SDKs take it as it is.',
    });
    // The two pages of the one static build: the usage view and the admin console.
    const pageOutputs: Readonly<Record<string, string>> = {
      'usage-page': stackOutputKeys.usagePageUrl,
      'admin-console': stackOutputKeys.consoleUrl,
    };
    for (const site of staticSites) {
      const outputKey = pageOutputs[site.route.id];
      if (outputKey) new CfnOutput(this, outputKey, { value: `${gatewayUrl}${site.route.path}` });
    }
    // Where rotation puts a new origin secret (docs/deploy-aws.md, "Rotating the origin secret"): ARNs, never the values.
    for (const slot of originSecretSlots) {
      new CfnOutput(this, `OriginSecretSlot${slot.toUpperCase()}Arn`, { value: originSecrets.secrets[slot].secretArn });
    }
    new CfnOutput(this, stackOutputKeys.stage, { value: props.stage });
    new CfnOutput(this, stackOutputKeys.region, { value: this.region });
    for (const [name, table] of tables) new CfnOutput(this, tableOutputKey(name), { value: table.tableName });

    this.tables = tables;
    this.functions = functions;
    this.origins = origins;
    this.scheduledFunctions = scheduledFunctions;
    this.streamFunctions = streamFunctions;
    this.streamConsumers = streamConsumers;
    this.gatewayDistribution = gatewayDistribution;
    this.staticSites = staticSites;
    this.alarms = alarms;
    this.alertDelivery = alertDelivery;
    this.originSecrets = originSecrets;
    acknowledgeNagFindings(this, { gatewayDistribution, staticSites, webAcl: props.webAclArn !== undefined });
  }
}

/** The grants of infra/function-permissions.ts, nothing more. */
function grantAccess(
  gatewayFunction: GatewayFunction,
  access: FunctionAccess,
  tables: ReadonlyMap<TableName, Table>,
  secretPrefix: string,
  originSecrets: OriginSecrets,
): void {
  const permissions = functionPermissions[access];
  for (const [name, actions] of Object.entries(permissions.tables) as [TableName, readonly DynamoAction[]][]) {
    const table = tables.get(name);
    // A retired earlier records table is no longer the stack's: nothing may reach it any more.
    if (!table && name === 'earlierUsage') continue;
    if (!table) throw new Error(`the stack declares no ${name} table`);
    gatewayFunction.grantTable(table, actions);
  }
  gatewayFunction.grantProviderCredentials(secretPrefix, permissions.providerCredentials);
  if (permissions.originCheck) originSecrets.grantCheck(gatewayFunction.function);
  if (permissions.alertEvents) grantAlertEvents(Stack.of(gatewayFunction), gatewayFunction);
}
