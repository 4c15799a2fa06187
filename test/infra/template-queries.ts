/** Reading a synthesized CloudFormation template the way the services that run it would. */

export interface TemplateResource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export type TemplateResources = Record<string, TemplateResource>;

export interface PolicyStatementJson {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

export interface CacheBehaviourJson {
  PathPattern?: string;
  TargetOriginId: string;
  AllowedMethods?: string[];
  CachePolicyId?: string;
  OriginRequestPolicyId?: string;
  ResponseHeadersPolicyId?: unknown;
  ViewerProtocolPolicy: string;
  Compress?: boolean;
  FunctionAssociations?: { EventType: string; FunctionARN: unknown }[];
}

export interface OriginJson {
  Id: string;
  DomainName: unknown;
  CustomOriginConfig?: Record<string, unknown>;
  S3OriginConfig?: Record<string, unknown>;
  OriginAccessControlId?: unknown;
}

export interface DistributionConfigJson {
  DefaultCacheBehavior: CacheBehaviourJson;
  CacheBehaviors: CacheBehaviourJson[];
  Origins: OriginJson[];
}

export function actionsOf(statement: PolicyStatementJson): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

/** CloudFront path patterns: `*` is any run of characters, slashes included; `?` is one character. */
export function matchesPathPattern(pattern: string, path: string): boolean {
  const expression = [...pattern]
    .map((character) => {
      if (character === '*') return '.*';
      if (character === '?') return '.';
      return character.replace(/[.+^$()[\]{}|\\/]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${expression}$`).test(path);
}

/** The behaviour CloudFront applies to a path: the first whose pattern matches, in order, else the default. */
export function behaviourFor(config: DistributionConfigJson, path: string): CacheBehaviourJson {
  return (
    config.CacheBehaviors.find((behaviour) => matchesPathPattern(behaviour.PathPattern ?? '', path)) ??
    config.DefaultCacheBehavior
  );
}

/**
 * What an origin points at: the logical id of the function URL whose host it is (`Fn::Select` 2 of the URL split
 * at `/`), or of the bucket it reads.
 */
export function originTarget(config: DistributionConfigJson, originId: string): string {
  const origin = config.Origins.find((candidate) => candidate.Id === originId);
  if (!origin) throw new Error(`no origin ${originId}`);
  const text = JSON.stringify(origin.DomainName);
  const reference = /"Fn::GetAtt":\["([^"]+)","(FunctionUrl|RegionalDomainName)"\]/.exec(text);
  if (!reference?.[1]) throw new Error(`origin ${originId} points at nothing this test knows: ${text}`);
  return reference[1];
}
