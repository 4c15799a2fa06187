import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleAliases, lambdaBundling } from '../../infra/lambda-bundling.ts';

/** DynamoDB document-client commands, by class name, and the IAM action each one needs. */
const dynamoActions: Readonly<Record<string, string>> = {
  Get: 'dynamodb:GetItem',
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  Query: 'dynamodb:Query',
  Scan: 'dynamodb:Scan',
  BatchGet: 'dynamodb:BatchGetItem',
  BatchWrite: 'dynamodb:BatchWriteItem',
  TransactGet: 'dynamodb:TransactGetItems',
  TransactWrite: 'dynamodb:TransactWriteItems',
};

/**
 * The SecretStore methods and the Secrets Manager actions each one calls (shared/secrets/secrets-manager-store.ts:
 * `read` is a GetSecretValue (cached); `write` creates, or puts when the secret exists; `remove`
 * deletes). test/secrets/secrets-manager-store.test.ts holds the store to the write and remove calls.
 */
const secretActions: Readonly<Record<string, readonly string[]>> = {
  read: ['secretsmanager:GetSecretValue'],
  write: ['secretsmanager:CreateSecret', 'secretsmanager:PutSecretValue'],
  remove: ['secretsmanager:DeleteSecret'],
};

/**
 * The AWS actions a function's own code can call, read from its bundle as esbuild builds it for Lambda (tree-shaken,
 * so only code reachable from the entry remains), without minifying, so that each module's code is marked with its
 * path. Only the project's modules count: the SDK's paginators construct commands the gateway never sends.
 */
export async function awsActionsInCode(projectRoot: string, functionId: string): Promise<Set<string>> {
  const result = await build({
    entryPoints: [join(projectRoot, 'functions', `${functionId}.ts`)],
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: lambdaBundling.format,
    mainFields: [...lambdaBundling.mainFields],
    alias: { ...bundleAliases },
    minify: false,
    write: false,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]?.text ?? '';
  const sections = text.split(/^\/\/ (\S+)$/m);
  let ownCode = '';
  for (let index = 1; index < sections.length; index += 2) {
    if (/^(shared|functions)\//.test(sections[index] ?? '')) ownCode += sections[index + 1] ?? '';
  }
  const actions = new Set<string>();
  for (const [, command] of ownCode.matchAll(/new (\w+?)Command\d*\(/g)) {
    const action = dynamoActions[command ?? ''];
    if (action) actions.add(action);
  }
  for (const [, method] of ownCode.matchAll(/secrets\.(read|write|remove)\(/g)) {
    for (const action of secretActions[method ?? ''] ?? []) actions.add(action);
  }
  return actions;
}
