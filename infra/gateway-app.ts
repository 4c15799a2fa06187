import type { App } from 'aws-cdk-lib';
import type { StaticRouteDefinition } from '../shared/http/route-table.ts';
import type { DeploymentSettings } from './deployment-settings.ts';
import { EdgeProtectionStack, edgeProtectionRegion } from './edge-protection-stack.ts';
import { GatewayStack } from './gateway-stack.ts';
import { edgeStackNameFor, stackNameFor } from './stack-outputs.ts';

export interface GatewayStacks {
  readonly gateway: GatewayStack;
  /** The web ACL's stack in us-east-1, with `waf=true`. */
  readonly edge: EdgeProtectionStack | undefined;
}

/**
 * The stacks of one stage, as `cdk synth` and the template tests build them. Without WAF the gateway stack is
 * environment-agnostic, as before. With WAF its web ACL lives in us-east-1 (the only region CloudFront takes one
 * from), so both stacks name their account and region and the CDK passes the ACL's ARN between them;
 * `cdk deploy ModelGateway-<stage>` deploys the ACL's stack first, as a dependency.
 */
export function defineGatewayStacks(
  app: App,
  settings: DeploymentSettings,
  staticSiteSources: Readonly<Record<StaticRouteDefinition['build'], string>>,
): GatewayStacks {
  let edge: EdgeProtectionStack | undefined;
  let environment: { account: string; region: string } | undefined;
  if (settings.waf) {
    if (!settings.account || !settings.region) {
      throw new Error(
        'waf=true needs the target account and region at synthesis (AWS credentials for the CDK CLI, or ' +
          '--context account=ID --context region=REGION): the web ACL lives in us-east-1 and the stack must know ' +
          'which region it reads it from.',
      );
    }
    environment = { account: settings.account, region: settings.region };
    edge = new EdgeProtectionStack(app, edgeStackNameFor(settings.stage), {
      env: { account: settings.account, region: edgeProtectionRegion },
      crossRegionReferences: true,
      stage: settings.stage,
      requestsPerFiveMinutes: settings.waf.requestsPerFiveMinutes,
      description: `Model gateway, stage ${settings.stage}: the distribution's web ACL`,
    });
  }
  const gateway = new GatewayStack(app, stackNameFor(settings.stage), {
    ...(environment ? { env: environment, crossRegionReferences: true } : {}),
    stage: settings.stage,
    production: settings.production,
    ...(settings.upstreamPrefixes ? { upstreamPrefixes: settings.upstreamPrefixes } : {}),
    reservedConcurrency: settings.reservedConcurrency,
    originSecretSlot: settings.originSecretSlot,
    earlierRecords: settings.earlierRecords,
    alertEmail: settings.alertEmail,
    telemetry: settings.telemetry,
    signInEnvironment: settings.signInEnvironment,
    ...(edge ? { webAclArn: edge.webAcl.attrArn } : {}),
    staticSiteSources,
    description: `Model gateway, stage ${settings.stage}`,
  });
  // The cross-region reference makes the gateway stack depend on the ACL's, so it deploys first.
  return { gateway, edge };
}
