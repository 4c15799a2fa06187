import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import type { FunctionAccess } from './function-profiles.ts';
import { acknowledgeBedrockWildcards } from './nag-acknowledgements.ts';

/**
 * What each function may ask of Amazon Bedrock, for Bedrock connections that sign with the function's own role
 * (shared/wires/bedrock/). Granted only when the deployment names the models it allows (`--context
 * bedrockModels=anthropic.claude-sonnet-4-5*,anthropic.claude-haiku-4-5*`): nothing at all otherwise.
 */
export const bedrockActions: Readonly<Partial<Record<FunctionAccess, readonly BedrockAction[]>>> = {
  // Generations, whole and streamed.
  inference: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
  // `POST /v1/messages/count_tokens` on a Bedrock connection: CountTokens, which Bedrock authorizes as InvokeModel
  // of the model counted for.
  'token-count': ['bedrock:CountTokens', 'bedrock:InvokeModel'],
  // `connection test`: a one-token generation (the runtime endpoint lists no models).
  admin: ['bedrock:InvokeModel'],
};

export type BedrockAction = 'bedrock:InvokeModel' | 'bedrock:InvokeModelWithResponseStream' | 'bedrock:CountTokens';

/** A model id or family as the setting names it: Bedrock's id characters, `*` for a family. */
const modelPattern = /^[A-Za-z0-9][A-Za-z0-9.:_*-]{0,199}$/;

/** `-c bedrockModels=a,b` (a string) or cdk.json's array → the ids and families; undefined when not set. */
export function readBedrockModels(value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const items = (Array.isArray(value) ? value : String(value).split(','))
    .map((item) => String(item).trim())
    .filter((item) => item.length > 0);
  for (const item of items) {
    if (!modelPattern.test(item) || item === '*') {
      throw new Error(
        `context "bedrockModels" names Bedrock model ids or families such as anthropic.claude-sonnet-4-5*, got ${JSON.stringify(item)}`,
      );
    }
  }
  return items.length === 0 ? undefined : items;
}

/**
 * The ARNs the allowed models are reached by: the foundation model in any region (a cross-region inference
 * profile routes to the model in the regions of its geography), and the account's inference profiles of it,
 * system-defined (`us.anthropic.…`, `global.anthropic.…`) or named as given.
 */
export function bedrockResources(stack: Stack, models: readonly string[]): string[] {
  return models.flatMap((model) => [
    `arn:${stack.partition}:bedrock:*::foundation-model/${model}`,
    `arn:${stack.partition}:bedrock:*:${stack.account}:inference-profile/${model}`,
    `arn:${stack.partition}:bedrock:*:${stack.account}:inference-profile/*.${model}`,
  ]);
}

/** Grants a function its Bedrock actions on the allowed models; nothing when none are allowed. */
export function grantBedrock(
  role: { addToRolePolicy(statement: PolicyStatement): unknown },
  scope: IConstruct,
  access: FunctionAccess,
  models: readonly string[] | undefined,
): void {
  const actions = bedrockActions[access];
  if (!actions || !models) return;
  role.addToRolePolicy(
    new PolicyStatement({ actions: [...actions], resources: bedrockResources(Stack.of(scope), models) }),
  );
  acknowledgeBedrockWildcards(scope, models);
}
