import { Duration } from 'aws-cdk-lib';
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  type IOrigin,
  OriginRequestPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { FunctionUrlOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { viewerHostHeader } from '../shared/http/gateway-endpoint.ts';
import { originSecretHeader } from '../shared/http/origin-check.ts';
import type { FunctionId } from '../shared/http/route-table.ts';
import type { FunctionOrigin } from './gateway-stack.ts';
import type { StaticSite } from './static-site.ts';

export interface GatewayDistributionProps {
  readonly stage: string;
  readonly origins: readonly FunctionOrigin[];
  /** Answers every path no route serves, so that even those get the gateway's own 404 or 405 body. */
  readonly fallbackFunctionId: FunctionId;
  readonly staticSites: readonly StaticSite[];
  /** What CloudFront adds to every function request as the origin secret header (a dynamic reference). */
  readonly originSecretValue: string;
  /** A CLOUDFRONT-scope AWS WAF web ACL for the distribution, if any. */
  readonly webAclArn?: string | undefined;
}

/**
 * CloudFront's wait for the origin: the first byte of an answer, and then each gap between two chunks of a
 * stream. 60 s is what every account may set without a quota increase.
 */
export const originReadTimeout = Duration.seconds(60);

/**
 * One host for the whole gateway: every route of the route table to its function URL, the static pages from
 * their buckets. API paths are never cached, and reach the function with every viewer header but Host (a
 * function URL answers only to its own Host), every method and the body, so a streamed answer passes through
 * as it is produced.
 */
export class GatewayDistribution extends Construct {
  readonly distribution: Distribution;
  /** Path pattern → what it reaches, in the order CloudFront evaluates them. */
  readonly behaviours: ReadonlyMap<string, FunctionId | StaticSite>;

  constructor(scope: Construct, id: string, props: GatewayDistributionProps) {
    super(scope, id);
    const viewerHost = new EdgeFunction(this, 'ViewerHost', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Gives the functions the host the viewer called, which they cannot see',
      code: FunctionCode.fromInline(viewerHostFunctionCode),
    });
    const apiBehaviour = (functionUrl: FunctionUrl): BehaviorOptions => ({
      origin: functionUrlOrigin(functionUrl, props.originSecretValue),
      // No redirect: a client that POSTs to http:// would follow it with a GET and lose its body.
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      // With caching off this policy also forwards Authorization, which carries the gateway key.
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      // Compressing at the edge would hold back stream chunks; the functions answer uncompressed.
      compress: false,
      functionAssociations: [{ function: viewerHost, eventType: FunctionEventType.VIEWER_REQUEST }],
    });
    // One origin object per function, so each function URL is one origin however many patterns reach it.
    const apiBehaviours = new Map(props.origins.map((origin) => [origin.functionId, apiBehaviour(origin.functionUrl)]));
    const behaviourOf = (functionId: FunctionId): BehaviorOptions => {
      const behaviour = apiBehaviours.get(functionId);
      if (!behaviour) throw new Error(`the function ${functionId} has no function URL origin`);
      return behaviour;
    };
    const defaultBehavior = behaviourOf(props.fallbackFunctionId);
    const ordered = orderPathPatterns(props.origins);
    const behaviours = new Map<string, FunctionId | StaticSite>();
    const additionalBehaviors: Record<string, BehaviorOptions> = {};
    for (const site of props.staticSites) {
      additionalBehaviors[site.pathPattern] = site.behavior;
      behaviours.set(site.pathPattern, site);
    }
    for (const [pattern, functionId] of ordered) {
      if (behaviours.has(pattern)) throw new Error(`two behaviours claim the path pattern ${pattern}`);
      additionalBehaviors[pattern] = behaviourOf(functionId);
      behaviours.set(pattern, functionId);
    }

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Model gateway, stage ${props.stage}`,
      defaultBehavior,
      additionalBehaviors,
      httpVersion: HttpVersion.HTTP2_AND_3,
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
    });
    this.behaviours = behaviours;
  }
}

/**
 * A viewer-request function on every API behaviour: a function URL answers only to its own Host, so CloudFront
 * sends that one, and the gateway's own address (the holder policy record's `endpoint`, say) would be lost. The
 * viewer's Host is copied into a header of the gateway's, replacing any value the viewer sent in it.
 */
export const viewerHostFunctionCode = [
  'function handler(event) {',
  '  var request = event.request;',
  '  var host = request.headers.host;',
  `  if (host) request.headers[${JSON.stringify(viewerHostHeader)}] = { value: host.value };`,
  `  else delete request.headers[${JSON.stringify(viewerHostHeader)}];`,
  '  return request;',
  '}',
].join('\n');

function functionUrlOrigin(functionUrl: FunctionUrl, originSecretValue: string): IOrigin {
  return new FunctionUrlOrigin(functionUrl, {
    // The proof that a request came through CloudFront; a viewer's header of the same name is replaced.
    customHeaders: { [originSecretHeader]: originSecretValue },
    readTimeout: originReadTimeout,
    // Streams and SDK clients reuse connections; keep CloudFront's to the function open as long as allowed.
    keepaliveTimeout: Duration.seconds(60),
  });
}

/**
 * Every function's patterns with the upstream-prefixed ones (`/*` + path) last: they are the least specific, and
 * CloudFront takes the first pattern that matches.
 */
export function orderPathPatterns(origins: readonly FunctionOrigin[]): [pattern: string, functionId: FunctionId][] {
  const all = origins.flatMap((origin) =>
    origin.pathPatterns.map((pattern): [string, FunctionId] => [pattern, origin.functionId]),
  );
  const isPrefixed = ([pattern]: [string, FunctionId]) => pattern.startsWith('/*');
  return [...all.filter((entry) => !isPrefixed(entry)), ...all.filter(isPrefixed)];
}
