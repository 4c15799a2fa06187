import { App } from 'aws-cdk-lib';
import { GatewayStack } from './gateway-stack.ts';

const app = new App();

const stage = readStage(app.node.tryGetContext('stage'));
new GatewayStack(app, `ModelGateway-${stage}`, {
  stage,
  production: readFlag(app.node.tryGetContext('production')),
  upstreamPrefixes: readList(app.node.tryGetContext('upstreamPrefixes')),
  description: `Model gateway, stage ${stage}`,
});

/** The stage names the stack and the secret prefix, so it must be safe in both. */
function readStage(value: unknown): string {
  const stage = value ?? 'dev';
  if (typeof stage !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(stage)) {
    throw new Error(`context "stage" must be lowercase letters, digits and hyphens, got ${JSON.stringify(value)}`);
  }
  return stage;
}

/** `-c production=true` arrives as a string, cdk.json as a boolean. */
function readFlag(value: unknown): boolean {
  return value === true || value === 'true';
}

/** `-c upstreamPrefixes=lb,lb2,...` arrives as a string, cdk.json may hold an array. */
function readList(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : String(value).split(',');
  return items.map((item) => String(item).trim()).filter((item) => item.length > 0);
}
