import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { BuildOptions } from 'esbuild';
import { awsSdkPackages, buildLambdaBundle, bundleOutputRoot } from '../infra/lambda-bundle-build.ts';
import { backgroundFunctionIds } from '../infra/stream-functions.ts';
import { functionIds } from '../shared/http/route-table.ts';
import { percentile } from './statistics.ts';

const run = promisify(execFile);

export interface BundleFigures {
  functionId: string;
  /** Set when the entry could not be bundled or loaded; the figures are then NaN. */
  error?: string;
  bytes: number;
  /** Median time to evaluate the module in a fresh process, over `initRuns` runs. */
  initMs: number;
  /** The fastest of those runs: the figure least disturbed by other work on the machine. */
  initMinMs: number;
  initRunsMs: number[];
  /** The packages that weigh most in the bundle, for a bundle over its budget. */
  heaviestInputs: { name: string; bytes: number }[];
  /** Each lazily loaded part (infra/lambda-bundle-build.ts): its file and what it adds when first loaded. */
  lazyModules: { file: string; bytes: number }[];
}

const initRuns = 7;

async function bundleAndTime(
  root: string,
  entry: string,
  name: string,
  extra: BuildOptions = {},
): Promise<Omit<BundleFigures, 'functionId'>> {
  const { outfile, bytes, heaviestInputs, lazyModules } = await buildLambdaBundle(root, entry, name, extra);
  const initRunsMs: number[] = [];
  for (let index = 0; index < initRuns; index++) initRunsMs.push(await measureInit(outfile));
  return {
    bytes,
    initMs: percentile(initRunsMs, 50),
    initMinMs: Math.min(...initRunsMs),
    initRunsMs,
    heaviestInputs,
    lazyModules: lazyModules.map(({ file, bytes: lazyBytes }) => ({ file, bytes: lazyBytes })),
  };
}

/** Every function the stack deploys (the route table's and the scheduled ones), bundled as the stack bundles it. */
export async function measureBundles(projectRoot: string): Promise<BundleFigures[]> {
  const root = await bundleOutputRoot(projectRoot);
  try {
    const figures: BundleFigures[] = [];
    for (const functionId of [...functionIds, ...backgroundFunctionIds]) {
      const entry = join(projectRoot, 'functions', `${functionId}.ts`);
      try {
        figures.push({ functionId, ...(await bundleAndTime(root, entry, functionId)) });
      } catch (error) {
        const message = error instanceof Error ? error.message.split('\n').slice(0, 3).join(' ') : String(error);
        figures.push({
          functionId,
          error: message,
          bytes: Number.NaN,
          initMs: Number.NaN,
          initMinMs: Number.NaN,
          initRunsMs: [],
          heaviestInputs: [],
          lazyModules: [],
        });
      }
    }
    return figures;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export interface BundleVariant {
  variant: string;
  bytes: number;
  initMs: number;
}

/**
 * A what-if for the chat-completions bundle, beside the bundle as built: the AWS SDK left to the runtime
 * (`bundleAwsSDK: false`), to weigh its bytes against the init time it saves or costs.
 */
export async function measureBundleVariants(projectRoot: string): Promise<BundleVariant[]> {
  const root = await bundleOutputRoot(projectRoot);
  const entry = join(projectRoot, 'functions', 'chat-completions.ts');
  try {
    const variants: [string, BuildOptions][] = [
      ['as built today', {}],
      ['AWS SDK left to the runtime', { external: awsSdkPackages }],
    ];
    const figures: BundleVariant[] = [];
    for (const [index, [variant, options]] of variants.entries()) {
      const { bytes, initMs } = await bundleAndTime(root, entry, `variant-${index}`, options).catch(() => ({
        bytes: Number.NaN,
        initMs: Number.NaN,
      }));
      figures.push({ variant, bytes, initMs });
    }
    return figures;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * Module init as Lambda's runtime does it before the first invocation: evaluate the bundle in a fresh process,
 * with the `awslambda` global the streaming runtime provides stubbed. Only the module's own evaluation is
 * timed (not Node's start), and in the Node of this machine rather than the function's runtime.
 */
async function measureInit(bundle: string): Promise<number> {
  const script = `
    globalThis.awslambda = { streamifyResponse: (handler) => handler, HttpResponseStream: { from: (stream) => stream } };
    const started = performance.now();
    await import(${JSON.stringify(pathToFileURL(bundle).href)});
    process.stdout.write(String(performance.now() - started));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: 'bench' },
  });
  return Number(stdout);
}
