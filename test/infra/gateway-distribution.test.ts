import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFrontPathPatterns } from '../../infra/cloudfront-path-patterns.ts';
import { originReadTimeout } from '../../infra/gateway-distribution.ts';
import { usagePageHeaders } from '../../infra/usage-page-build.ts';
import { parseGatewayConfig } from '../../shared/config/gateway-config.ts';
import { viewerHostHeader } from '../../shared/http/gateway-endpoint.ts';
import { type FunctionId, functionIds, routeTable, staticRoutes } from '../../shared/http/route-table.ts';
import { samplePath } from '../support/route-samples.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';
import {
  behaviourFor,
  type CacheBehaviourJson,
  type DistributionConfigJson,
  originTarget,
  type TemplateResource,
} from './template-queries.ts';

let synthesized: SynthesizedStack;
let config: DistributionConfigJson;

beforeAll(async () => {
  synthesized = await synthesizeStack('test');
  const distributions = Object.values(synthesized.resources).filter(
    (resource) => resource.Type === 'AWS::CloudFront::Distribution',
  );
  expect(distributions).toHaveLength(1);
  config = (distributions[0] as TemplateResource).Properties['DistributionConfig'] as DistributionConfigJson;
}, 60_000);

afterAll(() => synthesized?.cleanup());

function functionUrlLogicalId(functionId: FunctionId): string {
  const functionUrl = synthesized.stack.functions.get(functionId)?.functionUrl;
  if (!functionUrl) throw new Error(`${functionId} has no function URL`);
  return synthesized.logicalIdOf(functionUrl);
}

/** The code of the CloudFront function an association names. */
function viewerRequestCode(functionArn: unknown): string {
  const functionId = JSON.stringify(functionArn).match(/"([A-Za-z0-9]+)","FunctionARN"/)?.[1];
  const code = synthesized.resources[functionId ?? '']?.Properties['FunctionCode'];
  if (typeof code !== 'string') throw new Error('no viewer-request function code');
  return code;
}

/** The function, or `static`, that CloudFront sends a path to. */
function reachedBy(path: string): FunctionId | 'static' {
  const target = originTarget(config, behaviourFor(config, path).TargetOriginId);
  if (synthesized.stack.staticSites.some((site) => synthesized.logicalIdOf(site.bucket) === target)) return 'static';
  const functionId = functionIds.find((candidate) => functionUrlLogicalId(candidate) === target);
  if (!functionId) throw new Error(`${path} reaches ${target}, which is no gateway function`);
  return functionId;
}

const upstreamPrefixes = parseGatewayConfig({
  GATEWAY_TABLE_CONTROL: 'control',
  GATEWAY_TABLE_USAGE: 'usage',
  GATEWAY_TABLE_ROLLUPS: 'rollups',
  GATEWAY_TABLE_LEGACY_USAGE: 'legacy',
}).upstreamPrefixes;

describe('the CloudFront distribution', () => {
  it.each(routeTable)(
    'sends $method $path to the $functionId function, under every upstream prefix where allowed',
    (route) => {
      expect(reachedBy(samplePath(route))).toBe(route.functionId);
      for (const prefix of upstreamPrefixes) {
        const prefixed = `/${prefix}${samplePath(route)}`;
        if (route.upstreamPrefixable) expect(reachedBy(prefixed)).toBe(route.functionId);
        else expect(reachedBy(prefixed)).not.toBe(route.functionId);
      }
    },
  );

  it('has one behaviour per path pattern derived from the route table, and one per static route', () => {
    const patterns = config.CacheBehaviors.map((behaviour) => behaviour.PathPattern);
    expect(new Set(patterns).size).toBe(patterns.length);
    const derived = functionIds.flatMap((functionId) => cloudFrontPathPatterns(functionId));
    expect(patterns.toSorted()).toEqual(
      [...new Set(derived), ...staticRoutes.map((route) => `${route.path}*`)].toSorted(),
    );
    // CloudFront allows 25 behaviours per distribution.
    expect(patterns.length).toBeLessThanOrEqual(25);
  });

  it("sends Google's methods under both API versions to their functions, and OpenAI's model reads to the models function", () => {
    for (const version of ['v1beta', 'v1']) {
      for (const path of [
        `/${version}/models/google/gemini-2.5-flash:generateContent`,
        `/${version}/models/google%2Fgemini-2.5-flash:streamGenerateContent`,
        `/${version}/google/gemini-2.5-flash:generateContent`,
        `/lb2/${version}/models/ollama/llama3:8b:streamGenerateContent`,
      ]) {
        expect(reachedBy(path), path).toBe('generate-content');
      }
      expect(reachedBy(`/${version}/models/google/gemini-2.5-flash:countTokens`)).toBe('count-tokens');
      expect(reachedBy(`/lb/${version}/models/google/gemini-2.5-flash:countTokens`)).toBe('count-tokens');
    }
    for (const path of [
      '/v1/models',
      '/v1/models/gpt-4o',
      '/v1/models/openai%2Fgpt-4o',
      '/v1/models/ollama/llama3:8b',
    ]) {
      expect(reachedBy(path), path).toBe('models');
    }
    // A method's pattern claims no path of a route that is not prefixable.
    expect(reachedBy('/admin/v1/models/x:generateContent')).toBe('admin');
    expect(reachedBy('/usage-api/v1/x:countTokens')).toBe('usage');
  });

  it('answers paths no route serves with a gateway function, so they get its 404 or 405', () => {
    expect(reachedBy('/')).toBe('models');
    expect(reachedBy('/v2/chat/completions')).toBe('models');
    expect(reachedBy('/lb/admin/v1/members')).toBe('models');
  });

  it('forwards API requests uncached, with every header but Host, every method and the body', () => {
    const apiBehaviours = [config.DefaultCacheBehavior, ...config.CacheBehaviors].filter(
      (behaviour) => !staticRoutes.some((route) => behaviour.PathPattern === `${route.path}*`),
    );
    expect(apiBehaviours.length).toBe(config.CacheBehaviors.length + 1 - staticRoutes.length);
    for (const behaviour of apiBehaviours) {
      expect(behaviour).toMatchObject({
        CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
        OriginRequestPolicyId: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
        ViewerProtocolPolicy: 'https-only',
        Compress: false,
      } satisfies Partial<CacheBehaviourJson>);
      expect(behaviour.AllowedMethods?.toSorted()).toEqual([
        'DELETE',
        'GET',
        'HEAD',
        'OPTIONS',
        'PATCH',
        'POST',
        'PUT',
      ]);
    }
  });

  it('tells every function the host the viewer called, replacing any value the viewer sent for it', () => {
    const apiBehaviours = [config.DefaultCacheBehavior, ...config.CacheBehaviors].filter(
      (behaviour) => !staticRoutes.some((route) => behaviour.PathPattern === `${route.path}*`),
    );
    const codes = new Set(
      apiBehaviours.map((behaviour) => {
        const [association, ...others] = behaviour.FunctionAssociations ?? [];
        expect(others).toEqual([]);
        expect(association?.EventType).toBe('viewer-request');
        return viewerRequestCode(association?.FunctionARN);
      }),
    );
    expect(codes.size).toBe(1);
    const code = [...codes][0] ?? '';
    const run = (headers: Record<string, { value: string }>) => {
      const sandbox: { handler?: (event: { request: { headers: typeof headers } }) => { headers: typeof headers } } =
        {};
      runInNewContext(`${code}\nthis.handler = handler;`, sandbox);
      if (!sandbox.handler) throw new Error('the function code defines no handler');
      return sandbox.handler({ request: { headers } }).headers;
    };
    expect(run({ host: { value: 'gateway.example.com' }, [viewerHostHeader]: { value: 'spoofed.example' } })).toEqual({
      host: { value: 'gateway.example.com' },
      [viewerHostHeader]: { value: 'gateway.example.com' },
    });
    expect(run({ [viewerHostHeader]: { value: 'spoofed.example' } })).toEqual({});
  });

  it('reaches each function URL over HTTPS with the longest read timeout every account allows, kept alive', () => {
    const functionOrigins = config.Origins.filter((origin) => origin.CustomOriginConfig);
    expect(functionOrigins).toHaveLength(functionIds.length);
    expect(new Set(functionOrigins.map((origin) => originTarget(config, origin.Id)))).toEqual(
      new Set(functionIds.map(functionUrlLogicalId)),
    );
    for (const origin of functionOrigins) {
      expect(origin.CustomOriginConfig).toMatchObject({
        OriginProtocolPolicy: 'https-only',
        OriginReadTimeout: originReadTimeout.toSeconds(),
        OriginKeepaliveTimeout: 60,
      });
    }
    expect(originReadTimeout.toSeconds()).toBe(60);
  });
});

describe('the usage page on CloudFront', () => {
  const pagePath = staticRoutes[0]?.path ?? '/app/usage';

  it('is served from its bucket through origin access control', () => {
    for (const path of [pagePath, `${pagePath}/`, `${pagePath}/app.js`, `${pagePath}/styles.css`]) {
      expect(reachedBy(path)).toBe('static');
    }
    const behaviour = behaviourFor(config, pagePath);
    const origin = config.Origins.find((candidate) => candidate.Id === behaviour.TargetOriginId);
    expect(origin?.OriginAccessControlId).toBeDefined();
    expect(origin?.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    expect(behaviour.ViewerProtocolPolicy).toBe('redirect-to-https');
  });

  it('answers the page path with the index file and leaves asset paths alone', () => {
    const behaviour = behaviourFor(config, pagePath);
    const association = behaviour.FunctionAssociations?.[0];
    expect(association?.EventType).toBe('viewer-request');
    const functionId = JSON.stringify(association?.FunctionARN).match(/"([A-Za-z0-9]+)","FunctionARN"/)?.[1];
    const code = synthesized.resources[functionId ?? '']?.Properties['FunctionCode'];
    if (typeof code !== 'string') throw new Error('no viewer-request function code');
    const rewrite = (uri: string): string => {
      const sandbox: { handler?: (event: { request: { uri: string } }) => { uri: string } } = {};
      runInNewContext(`${code}\nthis.handler = handler;`, sandbox);
      if (!sandbox.handler) throw new Error('the function code defines no handler');
      return sandbox.handler({ request: { uri } }).uri;
    };
    expect(rewrite(pagePath)).toBe(`${pagePath}/index.html`);
    expect(rewrite(`${pagePath}/`)).toBe(`${pagePath}/index.html`);
    expect(rewrite(`${pagePath}/app.js`)).toBe(`${pagePath}/app.js`);
  });

  it('sends the same headers as the local host', () => {
    const policyId = JSON.stringify(behaviourFor(config, pagePath).ResponseHeadersPolicyId).match(
      /"Ref":"([^"]+)"/,
    )?.[1];
    const policy = synthesized.resources[policyId ?? '']?.Properties['ResponseHeadersPolicyConfig'] as {
      SecurityHeadersConfig: Record<string, Record<string, unknown>>;
      CustomHeadersConfig: { Items: { Header: string; Value: string }[] };
    };
    const security = policy.SecurityHeadersConfig;
    expect(security['ContentSecurityPolicy']?.['ContentSecurityPolicy']).toBe(
      usagePageHeaders['content-security-policy'],
    );
    expect(security['ContentTypeOptions']).toEqual({ Override: true });
    expect(security['FrameOptions']?.['FrameOption']).toBe(usagePageHeaders['x-frame-options']);
    expect(security['ReferrerPolicy']?.['ReferrerPolicy']).toBe(usagePageHeaders['referrer-policy']);
    expect(policy.CustomHeadersConfig.Items).toEqual([
      { Header: 'Cache-Control', Value: usagePageHeaders['cache-control'], Override: true },
    ]);
  });

  it('keeps the bucket private, encrypted and reachable over TLS only, by this distribution alone', () => {
    const site = synthesized.stack.staticSites[0];
    if (!site) throw new Error('no static site');
    const bucket = synthesized.resources[synthesized.logicalIdOf(site.bucket)];
    expect(bucket?.Properties['PublicAccessBlockConfiguration']).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(JSON.stringify(bucket?.Properties['BucketEncryption'])).toContain('AES256');
    expect(bucket?.Properties['BucketName']).toBeUndefined();
    const policy = Object.values(synthesized.resources).find((resource) => resource.Type === 'AWS::S3::BucketPolicy');
    if (!policy) throw new Error('the bucket has no policy');
    const statements = (policy.Properties['PolicyDocument'] as { Statement: Record<string, unknown>[] }).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const reads = statements.filter((statement) => statement['Effect'] === 'Allow');
    expect(reads).toHaveLength(1);
    expect(reads[0]?.['Principal']).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(JSON.stringify(reads[0]?.['Condition'])).toContain(
      synthesized.logicalIdOf(synthesized.stack.gatewayDistribution.distribution),
    );
  });

  it('deploys the built page under its path and clears the cached copy', () => {
    const deployment = Object.values(synthesized.resources).find(
      (resource) => resource.Type === 'Custom::CDKBucketDeployment',
    );
    expect(deployment?.Properties).toMatchObject({
      DestinationBucketKeyPrefix: `${pagePath.slice(1)}/`,
      DistributionPaths: [`${pagePath}*`],
      RetainOnDelete: false,
      Prune: true,
    });
    if (!deployment) throw new Error('no deployment of the page');
    const [objectKey] = deployment.Properties['SourceObjectKeys'] as string[];
    const assetDirectory = join(synthesized.app.synth().directory, `asset.${String(objectKey).replace(/\.zip$/, '')}`);
    expect(readdirSync(assetDirectory).toSorted()).toEqual(readdirSync(synthesized.usagePageDirectory).toSorted());
    expect(readdirSync(assetDirectory)).toContain('index.html');
  });
});
