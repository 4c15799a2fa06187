import { RemovalPolicy } from 'aws-cdk-lib';
import {
  type BehaviorOptions,
  CachePolicy,
  type Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import type { StaticRouteDefinition } from '../shared/http/route-table.ts';
import { responseHeadersPolicyFor } from './static-site-headers.ts';

export interface StaticSiteProps {
  readonly route: StaticRouteDefinition;
  /** The built files: `route.indexFile` and the assets the page loads from below `route.path`. */
  readonly sourceDirectory: string;
  /** Headers every file is answered with, the same ones the local host sends. */
  readonly responseHeaders: Readonly<Record<string, string>>;
}

/**
 * A static route on AWS: a private, encrypted bucket that only CloudFront reads (origin access control), the
 * built files deployed into it under the route's path, and the CloudFront behaviour that serves them.
 */
export class StaticSite extends Construct {
  readonly route: StaticRouteDefinition;
  readonly bucket: Bucket;
  /** The CloudFront path pattern of the route and how it is served. */
  readonly pathPattern: string;
  readonly behavior: BehaviorOptions;
  private readonly props: StaticSiteProps;

  constructor(scope: Construct, id: string, props: StaticSiteProps) {
    super(scope, id);
    this.props = props;
    this.route = props.route;
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Holds nothing but a build of files in this repository; the deployment empties it before it goes.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const { route } = props;
    // `/app/usage` and `/app/usage/` are the page itself; S3 knows it only as `<path>/index.html`.
    const indexRewrite = new EdgeFunction(this, 'IndexRewrite', {
      runtime: FunctionRuntime.JS_2_0,
      comment: `Answers ${route.path} with ${route.indexFile}`,
      code: FunctionCode.fromInline(
        [
          'function handler(event) {',
          '  var request = event.request;',
          `  if (request.uri === ${JSON.stringify(route.path)} || request.uri === ${JSON.stringify(`${route.path}/`)}) {`,
          `    request.uri = ${JSON.stringify(`${route.path}/${route.indexFile}`)};`,
          '  }',
          '  return request;',
          '}',
        ].join('\n'),
      ),
    });

    this.pathPattern = `${route.path}*`;
    this.behavior = {
      origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      compress: true,
      functionAssociations: [{ function: indexRewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
      responseHeadersPolicy: new ResponseHeadersPolicy(this, 'Headers', {
        comment: `Headers of ${route.path}, as the local host sends them`,
        ...responseHeadersPolicyFor(props.responseHeaders),
      }),
    };
  }

  /** Deploys the files once the distribution exists, and clears its cache of them on every change. */
  deployTo(distribution: Distribution): BucketDeployment {
    const { route } = this.props;
    return new BucketDeployment(this, 'Deployment', {
      sources: [Source.asset(this.props.sourceDirectory)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: `${route.path.slice(1)}/`,
      distribution,
      distributionPaths: [this.pathPattern],
      // Removing the deployment removes the files, so the stack can delete the bucket without a custom resource.
      retainOnDelete: false,
      logGroup: new LogGroup(this, 'DeploymentLogs', {
        retention: RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
      memoryLimit: 256,
    });
  }
}
