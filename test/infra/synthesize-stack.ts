import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { type DeploymentSettings, readDeploymentSettings } from '../../infra/deployment-settings.ts';
import type { EdgeProtectionStack } from '../../infra/edge-protection-stack.ts';
import { defineGatewayStacks } from '../../infra/gateway-app.ts';
import type { GatewayStack } from '../../infra/gateway-stack.ts';
import { writeUsagePage } from '../../infra/usage-page-build.ts';
import type { TemplateResources } from './template-queries.ts';

export interface SynthesizedStack {
  app: App;
  stack: GatewayStack;
  /** The web ACL's stack, when the context asked for WAF. */
  edge: EdgeProtectionStack | undefined;
  settings: DeploymentSettings;
  template: Template;
  resources: TemplateResources;
  usagePageDirectory: string;
  /** The logical id a construct's CloudFormation resource has in the template. */
  logicalIdOf(construct: IConstruct): string;
  /** Deletes the built page and the cloud assembly; call it in `afterAll`. */
  cleanup(): Promise<void>;
}

/**
 * The stack as `cdk synth` builds it, minus the esbuild bundling of the functions (test/infra/cdk-synth.test.ts
 * covers the bundles): templates are what these tests read, and bundling would add many seconds to each file.
 * The page and the cloud assembly go to one temporary folder, which `cleanup` deletes.
 */
export async function synthesizeStack(
  stage: string,
  context: Readonly<Record<string, string>> = {},
): Promise<SynthesizedStack> {
  const root = await mkdtemp(join(tmpdir(), 'synthesized-stack-'));
  const cleanup = () => rm(root, { recursive: true, force: true });
  try {
    const usagePageDirectory = join(root, 'usage-page');
    await writeUsagePage(usagePageDirectory);
    const app = new App({ outdir: join(root, 'cdk.out'), context: { 'aws:cdk:bundling-stacks': [] } });
    // The settings as `cdk synth --context ...` reads them, without the CLI's account and region.
    const settings = readDeploymentSettings((name) => ({ stage, ...context })[name]);
    const { gateway: stack, edge } = defineGatewayStacks(app, settings, { 'usage-page': usagePageDirectory });
    const template = Template.fromStack(stack);
    return {
      app,
      stack,
      edge,
      settings,
      template,
      resources: template.toJSON()['Resources'] as TemplateResources,
      usagePageDirectory,
      logicalIdOf(construct) {
        const resource = construct.node.defaultChild as CfnElement | undefined;
        if (!resource) throw new Error(`${construct.node.path} has no CloudFormation resource`);
        return stack.getLogicalId(resource);
      },
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
