import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { parseGatewayConfig } from '../shared/config/gateway-config.ts';
import { type FunctionId, functionIds, routeTable } from '../shared/http/route-table.ts';
import { type TableDefinition, tableDefinitions } from '../shared/store/table-definitions.ts';
import { cloudFrontPathPatterns } from './cloudfront-path-patterns.ts';
import { type FunctionAccess, functionProfiles } from './function-profiles.ts';
import { GatewayFunction } from './gateway-function.ts';
import { createGatewayTable } from './gateway-table.ts';
import { pascalCase } from './pascal-case.ts';

export interface GatewayStackProps extends StackProps {
  /** Names this deployment, so that several stages can share one account. */
  readonly stage: string;
  /** Protects data: tables get deletion protection and outlive the stack. */
  readonly production: boolean;
  /** The valid upstream prefixes, in order; without it functions use the configuration's default list. */
  readonly upstreamPrefixes?: readonly string[];
}

/** A function URL and the CloudFront path patterns that should reach it. */
export interface FunctionOrigin {
  readonly functionId: FunctionId;
  readonly functionUrl: FunctionUrl;
  readonly pathPatterns: readonly string[];
}

type TableName = TableDefinition['logicalName'];

const projectRoot = dirname(dirname(fileURLToPath(import.meta.url)));

export class GatewayStack extends Stack {
  readonly tables: ReadonlyMap<TableName, Table>;
  readonly functions: ReadonlyMap<FunctionId, GatewayFunction>;
  /** What a CloudFront distribution needs to put every function under one host. */
  readonly origins: readonly FunctionOrigin[];

  constructor(scope: Construct, id: string, props: GatewayStackProps) {
    super(scope, id, props);

    const tables = new Map(
      tableDefinitions.map((definition) => [
        definition.logicalName,
        createGatewayTable(this, definition, props.production),
      ]),
    );
    const secretPrefix = `model-gateway/${props.stage}`;
    const environment: Record<string, string> = {
      GATEWAY_SECRET_STORE: 'secrets-manager',
      GATEWAY_SECRET_PREFIX: secretPrefix,
    };
    for (const [name, table] of tables) environment[`GATEWAY_TABLE_${name.toUpperCase()}`] = table.tableName;
    if (props.upstreamPrefixes) environment['GATEWAY_UPSTREAM_PREFIXES'] = props.upstreamPrefixes.join(',');
    // The functions parse this same environment at cold start; a mistake should stop the deployment instead.
    parseGatewayConfig(environment);

    const functions = new Map<FunctionId, GatewayFunction>();
    const origins: FunctionOrigin[] = [];
    for (const functionId of functionIds) {
      const profile = functionProfiles[functionId];
      const gatewayFunction = new GatewayFunction(this, pascalCase(functionId), {
        entry: join(projectRoot, 'functions', `${functionId}.ts`),
        projectRoot,
        memorySize: profile.memorySize,
        timeout: profile.timeout,
        reservedConcurrentExecutions: profile.reservedConcurrentExecutions,
        environment,
        functionUrl: routeTable.some((route) => route.functionId === functionId),
        logRemovalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
      grantAccess(gatewayFunction, profile.access, tables, secretPrefix);
      functions.set(functionId, gatewayFunction);

      if (gatewayFunction.functionUrl) {
        origins.push({
          functionId,
          functionUrl: gatewayFunction.functionUrl,
          pathPatterns: cloudFrontPathPatterns(functionId),
        });
        new CfnOutput(this, `${pascalCase(functionId)}FunctionUrl`, { value: gatewayFunction.functionUrl.url });
      }
    }

    this.tables = tables;
    this.functions = functions;
    this.origins = origins;
  }
}

function grantAccess(
  gatewayFunction: GatewayFunction,
  access: FunctionAccess,
  tables: ReadonlyMap<TableName, Table>,
  secretPrefix: string,
): void {
  const table = (name: TableName): Table => {
    const found = tables.get(name);
    if (!found) throw new Error(`the stack declares no ${name} table`);
    return found;
  };
  switch (access) {
    case 'inference':
      // Admission, settlement and the usage rollups all write on the request path.
      for (const name of ['control', 'usage', 'rollups'] as const) gatewayFunction.grantTableReadWrite(table(name));
      gatewayFunction.grantSecretRead(secretPrefix);
      return;
    case 'catalog':
      gatewayFunction.grantTableRead(table('control'));
      return;
    case 'admin':
      gatewayFunction.grantTableReadWrite(table('control'));
      gatewayFunction.grantSecretWrite(secretPrefix);
      return;
    case 'usage-read':
      // Names of members and keys come from the control table; the usage view itself never writes.
      for (const name of ['control', 'usage', 'rollups'] as const) gatewayFunction.grantTableRead(table(name));
      return;
    default: {
      const unknownAccess: never = access;
      throw new Error(`unknown function access ${String(unknownAccess)}`);
    }
  }
}
