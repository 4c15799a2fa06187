import { Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultReservedConcurrency, defaultWafRequestsPerFiveMinutes } from '../../infra/deployment-settings.ts';
import { edgeProtectionRegion } from '../../infra/edge-protection-stack.ts';
import { functionProfiles } from '../../infra/function-profiles.ts';
import { originSecretSlots } from '../../infra/origin-secrets.ts';
import { backgroundFunctionIds, backgroundFunctionProfiles } from '../../infra/stream-functions.ts';
import { originSecretHeader } from '../../shared/http/origin-check.ts';
import { functionIds } from '../../shared/http/route-table.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';
import type { DistributionConfigJson, TemplateResource } from './template-queries.ts';

/**
 * Only CloudFront can invoke the functions (issue: entry points). The stack adds a per-deployment origin secret
 * to every function origin and names no function URL anywhere; each function reserves concurrency; an optional
 * web ACL (CLOUDFRONT scope, so in us-east-1) limits requests per client IP; and cdk-nag's CFR2 acknowledgement
 * is there only when that ACL is not.
 */
const stage = 'test';
let plain: SynthesizedStack;
let rotated: SynthesizedStack;
let withWaf: SynthesizedStack;

beforeAll(async () => {
  [plain, rotated, withWaf] = await Promise.all([
    synthesizeStack(stage),
    synthesizeStack(stage, { originSecretSlot: 'b', reservedConcurrency: '7' }),
    synthesizeStack(stage, { waf: 'true', account: '123456789012', region: 'eu-west-1' }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([plain?.cleanup(), rotated?.cleanup(), withWaf?.cleanup()]);
});

function distributionConfig(synthesized: SynthesizedStack): DistributionConfigJson & { WebACLId?: unknown } {
  const distribution = Object.values(synthesized.resources).find(
    (resource) => resource.Type === 'AWS::CloudFront::Distribution',
  ) as TemplateResource;
  return distribution.Properties['DistributionConfig'] as DistributionConfigJson & { WebACLId?: unknown };
}

function secretLogicalId(synthesized: SynthesizedStack, slot: (typeof originSecretSlots)[number]): string {
  return synthesized.logicalIdOf(synthesized.stack.originSecrets.secrets[slot]);
}

/** The header value CloudFormation resolves from a slot's secret at deployment: never the value itself. */
function dynamicReferenceTo(logicalId: string): unknown {
  return { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: logicalId }, ':SecretString:::}}']] };
}

function functionProperties(synthesized: SynthesizedStack, functionId: string): Record<string, unknown> {
  const gatewayFunction =
    synthesized.stack.functions.get(functionId as never) ??
    synthesized.stack.scheduledFunctions.get(functionId as never) ??
    synthesized.stack.streamFunctions.get(functionId as never);
  if (!gatewayFunction) throw new Error(`no function ${functionId}`);
  return synthesized.resources[synthesized.logicalIdOf(gatewayFunction.function)]?.Properties ?? {};
}

function nagFindings(synthesized: SynthesizedStack): string[] {
  const report = new AwsSolutionsChecks(synthesized.app).validateScope(synthesized.app);
  return report.violations.map(
    (violation) =>
      `${violation.ruleName} at ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
  );
}

/** The reason given for acknowledging a cdk-nag rule anywhere in the app (ids are stored namespaced). */
function acknowledgement(synthesized: SynthesizedStack, rule: string): string | undefined {
  for (const construct of synthesized.app.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        if (id.endsWith(rule)) return reason;
      }
    }
  }
  return undefined;
}

describe('only CloudFront reaches the functions', () => {
  it('names no function URL in any stack output', () => {
    const urlIds = Object.entries(plain.resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Url')
      .map(([logicalId]) => logicalId);
    expect(urlIds).toHaveLength(functionIds.length);
    const outputs = plain.template.toJSON()['Outputs'] as Record<string, { Value: unknown }>;
    for (const [name, output] of Object.entries(outputs)) {
      expect(name).not.toMatch(/FunctionUrl/i);
      for (const urlId of urlIds) expect(JSON.stringify(output.Value), name).not.toContain(urlId);
    }
  });

  it('adds the active origin secret to every function origin, as a dynamic reference, and to nothing else', () => {
    const config = distributionConfig(plain);
    const functionOrigins = config.Origins.filter((origin) => origin.CustomOriginConfig);
    expect(functionOrigins).toHaveLength(functionIds.length);
    for (const origin of config.Origins) {
      const headers = (origin as { OriginCustomHeaders?: unknown }).OriginCustomHeaders;
      if (origin.CustomOriginConfig) {
        expect(headers).toEqual([
          { HeaderName: originSecretHeader, HeaderValue: dynamicReferenceTo(secretLogicalId(plain, 'a')) },
        ]);
      } else {
        expect(headers).toBeUndefined();
      }
    }
  });

  it('tells where each slot lives (its ARN, for rotation), never its value', () => {
    const outputs = plain.template.toJSON()['Outputs'] as Record<string, { Value: unknown }>;
    expect(outputs['OriginSecretSlotAArn']?.Value).toEqual({ Ref: secretLogicalId(plain, 'a') });
    expect(outputs['OriginSecretSlotBArn']?.Value).toEqual({ Ref: secretLogicalId(plain, 'b') });
    expect(JSON.stringify(outputs)).not.toContain('resolve:secretsmanager');
  });

  it('generates each slot in Secrets Manager, so no value is in the template or the repository', () => {
    for (const slot of originSecretSlots) {
      const secret = plain.resources[secretLogicalId(plain, slot)];
      expect(secret?.Type).toBe('AWS::SecretsManager::Secret');
      expect(secret?.Properties['GenerateSecretString']).toMatchObject({
        PasswordLength: 64,
        ExcludePunctuation: true,
      });
      expect(secret?.Properties['SecretString']).toBeUndefined();
    }
  });

  it.each(functionIds)('%s accepts either slot: both secret ARNs are in its environment', (functionId) => {
    const variables = (functionProperties(plain, functionId)['Environment'] as { Variables: Record<string, unknown> })
      .Variables;
    expect(variables['GATEWAY_ORIGIN_SECRET_IDS']).toEqual({
      'Fn::Join': ['', [{ Ref: secretLogicalId(plain, 'a') }, ',', { Ref: secretLogicalId(plain, 'b') }]],
    });
  });

  it('moves CloudFront to the other slot with originSecretSlot=b, while the functions keep accepting both', () => {
    for (const origin of distributionConfig(rotated).Origins.filter((candidate) => candidate.CustomOriginConfig)) {
      expect((origin as { OriginCustomHeaders?: unknown }).OriginCustomHeaders).toEqual([
        { HeaderName: originSecretHeader, HeaderValue: dynamicReferenceTo(secretLogicalId(rotated, 'b')) },
      ]);
    }
    const variables = (functionProperties(rotated, 'messages')['Environment'] as { Variables: Record<string, unknown> })
      .Variables;
    expect(JSON.stringify(variables['GATEWAY_ORIGIN_SECRET_IDS'])).toContain(secretLogicalId(rotated, 'a'));
    expect(JSON.stringify(variables['GATEWAY_ORIGIN_SECRET_IDS'])).toContain(secretLogicalId(rotated, 'b'));
  });
});

describe('reserved concurrency', () => {
  const expected = (functionId: string, setting: number): number => {
    const profile =
      functionProfiles[functionId as keyof typeof functionProfiles] ??
      backgroundFunctionProfiles[functionId as keyof typeof backgroundFunctionProfiles];
    return profile.reservedConcurrency === 'deployment' ? setting : Math.min(profile.reservedConcurrency, setting);
  };

  it.each([...functionIds, ...backgroundFunctionIds])('%s reserves its share by default', (functionId) => {
    const reserved = functionProperties(plain, functionId)['ReservedConcurrentExecutions'];
    expect(reserved).toBe(expected(functionId, defaultReservedConcurrency));
    expect(reserved).toBeGreaterThan(0);
  });

  it('gives every inference function the deployment setting, and no function more than it', () => {
    for (const functionId of ['chat-completions', 'responses', 'messages', 'generate-content']) {
      expect(functionProperties(plain, functionId)['ReservedConcurrentExecutions']).toBe(defaultReservedConcurrency);
      expect(functionProperties(rotated, functionId)['ReservedConcurrentExecutions']).toBe(7);
    }
    for (const functionId of [...functionIds, ...backgroundFunctionIds]) {
      expect(functionProperties(rotated, functionId)['ReservedConcurrentExecutions']).toBe(expected(functionId, 7));
      expect(functionProperties(rotated, functionId)['ReservedConcurrentExecutions']).toBeLessThanOrEqual(7);
    }
    expect(functionProperties(plain, 'reaper')['ReservedConcurrentExecutions']).toBe(1);
  });

  it('refuses a setting that is not a whole number of at least 1', async () => {
    await expect(synthesizeStack(stage, { reservedConcurrency: '0' })).rejects.toThrow(/reservedConcurrency/);
    await expect(synthesizeStack(stage, { reservedConcurrency: 'many' })).rejects.toThrow(/reservedConcurrency/);
  });
});

describe('the optional web ACL (--context waf=true)', () => {
  it('is absent by default, and the CFR2 acknowledgement says so and what stands in its place', () => {
    expect(plain.edge).toBeUndefined();
    expect(distributionConfig(plain).WebACLId).toBeUndefined();
    const reason = acknowledgement(plain, 'CFR2');
    expect(reason).toMatch(/without a web ACL/i);
    expect(reason).toMatch(/waf=true/);
    expect(reason).toMatch(/origin secret/);
    expect(reason).toMatch(/reserved concurrency/);
  });

  it('lives in its own stack in us-east-1, with CLOUDFRONT scope and a rate-based block per client IP', () => {
    const edge = withWaf.edge;
    if (!edge) throw new Error('no edge stack');
    expect(edge.region).toBe(edgeProtectionRegion);
    expect(withWaf.stack.region).toBe('eu-west-1');
    const acls = Object.values(
      Template.fromStack(edge).toJSON()['Resources'] as Record<string, TemplateResource>,
    ).filter((resource) => resource.Type === 'AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    const acl = acls[0]?.Properties as Record<string, unknown>;
    expect(acl['Scope']).toBe('CLOUDFRONT');
    expect(acl['DefaultAction']).toEqual({ Allow: {} });
    expect(acl['Rules']).toEqual([
      expect.objectContaining({
        Action: { Block: {} },
        Statement: {
          RateBasedStatement: {
            Limit: defaultWafRequestsPerFiveMinutes,
            EvaluationWindowSec: 300,
            AggregateKeyType: 'IP',
          },
        },
      }),
    ]);
  });

  it("is attached to the distribution through the CDK's cross-region reference", () => {
    const webAclId = JSON.stringify(distributionConfig(withWaf).WebACLId);
    expect(webAclId).toContain('ExportsReader');
    expect(webAclId).toContain(`/cdk/exports/${withWaf.stack.stackName}/`);
    expect(webAclId).toContain('WebAclArn');
    expect(withWaf.stack.dependencies).toContain(withWaf.edge);
  });

  it('leaves cdk-nag nothing unacknowledged, and no CFR2 acknowledgement once the ACL is there', () => {
    expect(nagFindings(withWaf)).toEqual([]);
    expect(acknowledgement(withWaf, 'CFR2')).toBeUndefined();
    expect(acknowledgement(withWaf, 'CFR1')).toBeDefined();
  });

  it('needs the account and region at synthesis, and says so', async () => {
    await expect(synthesizeStack(stage, { waf: 'true' })).rejects.toThrow(/account and region/);
  });
});
