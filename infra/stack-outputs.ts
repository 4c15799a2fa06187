import type { EarlierTableLogicalName, TableLogicalName } from '../shared/store/table-definitions.ts';
import { pascalCase } from './pascal-case.ts';

/**
 * The names under which a deployed stage tells its address and resources: the stack writes these outputs and the
 * CLI's `bootstrap` reads them back with DescribeStacks. Free of CDK imports, so the CLI can load it cheaply.
 */
export const stackOutputKeys = {
  /** `https://<distribution>`: the gateway address; SDKs take `<it>/v1` as their base URL. */
  gatewayUrl: 'GatewayUrl',
  usagePageUrl: 'UsagePageUrl',
  /** `https://<distribution>/app/admin`: the admin console. */
  consoleUrl: 'ConsoleUrl',
  stage: 'Stage',
  region: 'Region',
} as const;

/** The output holding a table's physical name, e.g. `LegacyUsageTableName`. */
export function tableOutputKey(logicalName: TableLogicalName | EarlierTableLogicalName): string {
  return `${pascalCase(logicalName)}TableName`;
}

/** One stack per stage, so that two stages can live in one account and region. */
export function stackNameFor(stage: string): string {
  return `ModelGateway-${stage}`;
}

/** The stack in us-east-1 that holds a stage's web ACL, with `--context waf=true`. */
export function edgeStackNameFor(stage: string): string {
  return `ModelGateway-${stage}-edge`;
}

/** Stage names end up in the stack name, the secret prefix and the metrics namespace, so they must suit all three. */
export const stagePattern = /^[a-z][a-z0-9-]{0,31}$/;
