import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildLambdaBundle,
  bundleOutputRoot,
  lambdaBundleBudgetBytes,
  lazyModuleBudgetBytes,
} from '../../infra/lambda-bundle-build.ts';
import { backgroundFunctionIds } from '../../infra/stream-functions.ts';
import { functionIds } from '../../shared/http/route-table.ts';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Every function the stack deploys, bundled with the options `cdk deploy` bundles it with (infra/lambda-bundling.ts
 * through infra/lambda-bundle-build.ts, esbuild directly: no synth), stays within the budget: what its cold start
 * loads (index.mjs and the chunks it imports statically), and apart from that each part it loads lazily, on the
 * first request that needs it. Sizes, not times: init is measured and reported by `npm run bench`, never asserted
 * (the machine may be busy). Over budget? docs/bundles.md: find what is heavy (the failure lists it) and keep it
 * out of that function's graph, or behind an `await import()`.
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
    `%s loads at most ${lambdaBundleBudgetBytes.toLocaleString('en')} bytes at a cold start, and each lazy part at most ${lazyModuleBudgetBytes.toLocaleString('en')} more`,
    async (functionId) => {
      const built = await buildLambdaBundle(root, join(projectRoot, 'functions', `${functionId}.ts`), functionId);
      const heaviest = built.heaviestInputs.map((input) => `${input.name} ${input.bytes}`).join(', ');
      expect(
        built.bytes,
        `${functionId}: its cold start loads ${built.bytes} bytes (${built.initFiles.join(', ')}); heaviest: ${heaviest}`,
      ).toBeLessThanOrEqual(lambdaBundleBudgetBytes);
      for (const lazy of built.lazyModules) {
        expect(
          lazy.bytes,
          `${functionId}: ${lazy.file} adds ${lazy.bytes} bytes when first loaded (${lazy.sources.join(', ')})`,
        ).toBeLessThanOrEqual(lazyModuleBudgetBytes);
      }
      // Printed for the record (the figures docs/bundles.md keeps): what each function has left.
      const lazyParts = built.lazyModules.map((lazy) => `${lazy.file} ${lazy.bytes}`).join(', ');
      console.log(
        `${functionId}: ${built.bytes} bytes at init, ${lambdaBundleBudgetBytes - built.bytes} under the budget; lazy: ${lazyParts}`,
      );
    },
    60_000,
  );
});
