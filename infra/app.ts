import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readDeploymentSettings } from './deployment-settings.ts';
import { defineGatewayStacks } from './gateway-app.ts';
import { writeUsagePage } from './usage-page-build.ts';

const app = new App();
// Synthesis fails on any finding that is not acknowledged with a reason (infra/nag-acknowledgements.ts).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

const settings = readDeploymentSettings((name) => app.node.tryGetContext(name), process.env);
// The page is built here, before the synchronous stack code runs; the stack deploys the folder as it is.
const usagePageDirectory = await mkdtemp(join(tmpdir(), 'usage-page-'));
// The app synthesizes just before the process exits; by then the files are staged into the cloud assembly.
process.once('exit', () => rmSync(usagePageDirectory, { recursive: true, force: true }));
await writeUsagePage(usagePageDirectory);

defineGatewayStacks(app, settings, { 'usage-page': usagePageDirectory });
