import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLambdaBundle, bundleOutputRoot, lambdaBundleBudgetBytes } from '../../infra/lambda-bundle-build.ts';
import { backgroundFunctionIds } from '../../infra/stream-functions.ts';
import { functionIds } from '../../shared/http/route-table.ts';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Every function the stack deploys, bundled with the options `cdk deploy` bundles it with (infra/lambda-bundling.ts
 * through infra/lambda-bundle-build.ts), stays within the budget: its index.mjs is what a cold start loads. A size,
 * not a time: init is measured and reported by `npm run bench`, never asserted (the machine may be busy).
 * Over budget? docs/bundles.md: find what is heavy (the failure lists it) and keep it out of that function's graph.
 */
describe('the Lambda bundles stay within their budget', () => {
  let root: string;

  beforeAll(async () => {
    root = await bundleOutputRoot(projectRoot);
  });

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it.each([...functionIds, ...backgroundFunctionIds])(
    `%s is at most ${lambdaBundleBudgetBytes.toLocaleString('en')} bytes`,
    async (functionId) => {
      const built = await buildLambdaBundle(root, join(projectRoot, 'functions', `${functionId}.ts`), functionId);
      const heaviest = built.heaviestInputs.map((input) => `${input.name} ${input.bytes}`).join(', ');
      expect(built.bytes, `${functionId}: ${built.bytes} bytes; heaviest: ${heaviest}`).toBeLessThanOrEqual(
        lambdaBundleBudgetBytes,
      );
      // Printed for the record (the figures docs/bundles.md keeps): what each function has left.
      console.log(`${functionId}: ${built.bytes} bytes, ${lambdaBundleBudgetBytes - built.bytes} under the budget`);
    },
    60_000,
  );
});
