import { Stack, type StackProps } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';

export interface EdgeProtectionStackProps extends StackProps {
  readonly stage: string;
  /** Requests one client IP may make in any five minutes before WAF blocks it. */
  readonly requestsPerFiveMinutes: number;
}

/** A CLOUDFRONT-scope web ACL exists only in us-east-1, whichever region the gateway itself is deployed to. */
export const edgeProtectionRegion = 'us-east-1';

/**
 * The optional AWS WAF web ACL of a stage (`--context waf=true`), in a stack of its own in us-east-1: a web ACL for
 * CloudFront must live there, and a CloudFormation stack deploys to one region. The gateway stack reads the ACL's
 * ARN through the CDK's cross-region references (SSM parameters the CDK writes and reads for it). One rule: a
 * rate-based block per client IP. No managed rule groups: their body-size and content rules would refuse prompts.
 */
export class EdgeProtectionStack extends Stack {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeProtectionStackProps) {
    super(scope, id, props);
    const metrics = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `model-gateway-${props.stage}-${name}`,
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      description: `Model gateway, stage ${props.stage}: a rate limit per client IP in front of the distribution`,
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: metrics('web-acl'),
      rules: [
        {
          name: 'rate-per-ip',
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              limit: props.requestsPerFiveMinutes,
              evaluationWindowSec: 300,
              aggregateKeyType: 'IP',
            },
          },
          visibilityConfig: metrics('rate-per-ip'),
        },
      ],
    });
  }
}
