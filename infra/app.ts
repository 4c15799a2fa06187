import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { GatewayStack } from './gateway-stack.ts';
import { stackNameFor, stagePattern } from './stack-outputs.ts';
import { writeUsagePage } from './usage-page-build.ts';

const app = new App();
// Synthesis fails on any finding that is not acknowledged with a reason (infra/nag-acknowledgements.ts).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

const stage = readStage(app.node.tryGetContext('stage'));
// The page is built here, before the synchronous stack code runs; the stack deploys the folder as it is.
const usagePageDirectory = await mkdtemp(join(tmpdir(), 'usage-page-'));
// The app synthesizes just before the process exits; by then the files are staged into the cloud assembly.
process.once('exit', () => rmSync(usagePageDirectory, { recursive: true, force: true }));
await writeUsagePage(usagePageDirectory);

new GatewayStack(app, stackNameFor(stage), {
  stage,
  production: readFlag(app.node.tryGetContext('production')),
  upstreamPrefixes: readList(app.node.tryGetContext('upstreamPrefixes')),
  staticSiteSources: { 'usage-page': usagePageDirectory },
  description: `Model gateway, stage ${stage}`,
});

/** The stage names the stack and the secret prefix, so it must be safe in both. */
function readStage(value: unknown): string {
  const stage = value ?? 'dev';
  if (typeof stage !== 'string' || !stagePattern.test(stage)) {
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
