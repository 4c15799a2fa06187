import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockActions, readBedrockModels } from '../../infra/bedrock-access.ts';
import { functionProfiles } from '../../infra/function-profiles.ts';
import { functionIds } from '../../shared/http/route-table.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';
import { actionsOf, type PolicyStatementJson } from './template-queries.ts';

/**
 * Issue 22, item 5: the functions' roles reach Bedrock only when the deployment names the models it allows, and
 * then only those models (foundation models and inference profiles of them), with the actions each function's code
 * uses: generations for inference, counting for the token count, one generation for the admin function's
 * `connection test`; cdk-nag finds nothing unanswered.
 */
let allowed: SynthesizedStack;
let unset: SynthesizedStack;

beforeAll(async () => {
  allowed = await synthesizeStack('bedrockperm', {
    bedrockModels: 'anthropic.claude-sonnet-4-5*,anthropic.claude-haiku-4-5-20251001-v1:0',
  });
  unset = await synthesizeStack('nobedrock');
}, 120_000);
afterAll(async () => {
  await allowed?.cleanup();
  await unset?.cleanup();
});

function bedrockStatementsOf(synthesized: SynthesizedStack, functionId: string): PolicyStatementJson[] {
  const role = synthesized.stack.functions.get(functionId as never)?.function.role;
  if (!role) throw new Error(`${functionId} has no role`);
  const roleId = synthesized.logicalIdOf(role);
  return Object.values(synthesized.resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::IAM::Policy' &&
        JSON.stringify(resource.Properties['Roles']) === JSON.stringify([{ Ref: roleId }]),
    )
    .flatMap((resource) => (resource.Properties['PolicyDocument'] as { Statement: PolicyStatementJson[] }).Statement)
    .filter((statement) => actionsOf(statement).some((action) => action.startsWith('bedrock:')));
}

describe('Bedrock permissions', () => {
  it.each(functionIds.map((functionId) => ({ functionId, access: functionProfiles[functionId].access })))(
    '$functionId ($access) gets exactly its Bedrock actions on the allowed models, and none when unset',
    ({ functionId, access }) => {
      expect(bedrockStatementsOf(unset, functionId)).toEqual([]);
      const statements = bedrockStatementsOf(allowed, functionId);
      const expected = bedrockActions[access];
      if (!expected) {
        expect(statements).toEqual([]);
        return;
      }
      expect(statements).toHaveLength(1);
      const [statement] = statements as [PolicyStatementJson];
      expect(new Set(actionsOf(statement))).toEqual(new Set(expected));
      const resources = JSON.stringify(allowed.stack.resolve(statement.Resource));
      for (const model of ['anthropic.claude-sonnet-4-5*', 'anthropic.claude-haiku-4-5-20251001-v1:0']) {
        expect(resources).toContain(`:bedrock:*::foundation-model/${model}"`);
        expect(resources).toContain(`:inference-profile/${model}"`);
        expect(resources).toContain(`:inference-profile/*.${model}"`);
      }
      expect(resources).not.toMatch(/foundation-model\/\*"/);
    },
  );

  it('grants inference, the token count and the admin function, and no other function', () => {
    const granted = functionIds.filter((functionId) => bedrockStatementsOf(allowed, functionId).length > 0);
    expect(new Set(granted.map((functionId) => functionProfiles[functionId].access))).toEqual(
      new Set(['inference', 'token-count', 'admin']),
    );
  });

  it('leaves no cdk-nag finding unanswered', () => {
    const report = new AwsSolutionsChecks(allowed.app).validateScope(allowed.app);
    expect(
      report.violations.map(
        (violation) =>
          `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
      ),
    ).toEqual([]);
  });

  it('reads the setting as a list of ids and families, and refuses a bare wildcard or a stray character', () => {
    expect(readBedrockModels(undefined)).toBeUndefined();
    expect(readBedrockModels(' anthropic.claude-* , amazon.nova-lite-v1:0 ')).toEqual([
      'anthropic.claude-*',
      'amazon.nova-lite-v1:0',
    ]);
    expect(readBedrockModels(['anthropic.claude-opus-4-1*'])).toEqual(['anthropic.claude-opus-4-1*']);
    expect(() => readBedrockModels('*')).toThrow(/bedrockModels/);
    expect(() => readBedrockModels('anthropic.claude"}')).toThrow(/bedrockModels/);
  });
});
