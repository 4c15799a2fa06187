import { type CfnElement, Stack, Token, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { GatewayDistribution } from './gateway-distribution.ts';
import type { StaticSite } from './static-site.ts';

/**
 * The cdk-nag AwsSolutions findings this stack accepts, each on the construct it concerns and with the reason.
 * Grant wildcards are acknowledged where they are granted (GatewayFunction); these are the rest.
 */
export function acknowledgeNagFindings(
  stack: Stack,
  parts: {
    readonly gatewayDistribution: GatewayDistribution;
    readonly staticSites: readonly StaticSite[];
    /** Whether a web ACL is attached (`--context waf=true`); without one, CFR2 is acknowledged as it stands. */
    readonly webAcl: boolean;
  },
): void {
  Validations.of(parts.gatewayDistribution.distribution).acknowledge(
    {
      id: 'AwsSolutions-CFR1',
      reason: 'A team gateway serves its members wherever they work; there is no country to exclude.',
    },
    ...(parts.webAcl
      ? []
      : [
          {
            id: 'AwsSolutions-CFR2',
            reason:
              'Deployed without a web ACL, as chosen: --context waf=true attaches one with a rate limit per client ' +
              'IP. Without it there is no per-IP limit at the edge; the functions accept only requests carrying ' +
              "CloudFront's origin secret, each function's reserved concurrency caps what a flood can run, and " +
              'every API request needs a gateway key and is limited per member by the admission write.',
          },
        ]),
    {
      id: 'AwsSolutions-CFR3',
      reason:
        'Standard logs would store every query string, including any key a client wrongly puts there (the ' +
        'gateway refuses it, but the log would keep it). The functions log each request as structured JSON, ' +
        'without secrets.',
    },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        'The distribution uses the default cloudfront.net certificate, whose TLS policy CloudFront fixes; a ' +
        'custom domain with its own certificate is what allows TLSv1.2_2021 as the minimum.',
    },
  );
  for (const site of parts.staticSites) {
    Validations.of(site.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds a build of public source files and only CloudFront reads it (origin access control); ' +
        'access logs of it would need a second bucket and tell nothing the functions do not log.',
    });
  }

  // BucketDeployment runs one handler function per stack, created by aws-cdk-lib with its own role and runtime.
  for (const handler of bucketDeploymentHandlers(stack)) {
    Validations.of(handler).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: "aws-cdk-lib's BucketDeployment handler role; it only runs while a deployment copies the page.",
      },
      ...[
        'Action::s3:GetObject*',
        'Action::s3:GetBucket*',
        'Action::s3:List*',
        'Action::s3:DeleteObject*',
        'Action::s3:Abort*',
        `Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${nagAccount(stack)}-${nagRegion(stack)}/*`,
        ...parts.staticSites.map(
          (site) => `Resource::<${stack.getLogicalId(site.bucket.node.defaultChild as CfnElement)}.Arn>/*`,
        ),
        'Resource::*',
      ].map((finding) => ({
        id: `AwsSolutions-IAM5[${finding}]`,
        reason:
          "aws-cdk-lib's BucketDeployment grants: it reads the page's asset from the CDK assets bucket, " +
          "replaces the objects of the page's bucket and invalidates the distribution's cache of them " +
          '(CloudFront invalidation permissions take no narrower resource).',
      })),
      {
        id: 'AwsSolutions-L1',
        reason:
          'aws-cdk-lib chooses the runtime of its BucketDeployment handler; it runs only during deployments and ' +
          'moves to a newer runtime with aws-cdk-lib upgrades.',
      },
    );
  }
}

function bucketDeploymentHandlers(stack: Stack): IConstruct[] {
  return stack.node.children.filter((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
}

/**
 * How cdk-nag writes a stack's region and account in a finding: the pseudo parameter for an environment-agnostic
 * stack, the value itself for a stack deployed to a named environment (as with `--context waf=true`).
 */
export function nagRegion(stack: Stack): string {
  return Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
}

export function nagAccount(stack: Stack): string {
  return Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
}

/**
 * cdk-nag's AwsSolutions-IAM5 flags the Bedrock grant's wildcards (infra/bedrock-access.ts): the region of a
 * foundation model (a cross-region inference profile runs the model in any region of its geography), the
 * geography prefix of a system inference profile (`us.`, `eu.`, `global.`…), and the `*` of a model family the
 * deployment itself chose to allow (`anthropic.claude-sonnet-4-5*`). Nothing else of Bedrock is reachable.
 */
export function acknowledgeBedrockWildcards(scope: IConstruct, models: readonly string[]): void {
  const account = nagAccount(Stack.of(scope));
  const reason =
    'Bedrock models the deployment allows (bedrockModels), in every region as cross-region inference profiles ' +
    'need, and the geography-prefixed inference profiles of them; the wildcards name regions, geography prefixes ' +
    'and the model families the team chose, nothing else.';
  Validations.of(scope).acknowledge(
    ...models.flatMap((model) => [
      { id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${model}]`, reason },
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*:${account}:inference-profile/${model}]`,
        reason,
      },
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*:${account}:inference-profile/*.${model}]`,
        reason,
      },
    ]),
  );
}
