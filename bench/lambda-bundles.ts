import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';
import { scheduledFunctionIds } from '../infra/scheduled-functions.ts';
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
}

const initRuns = 7;

/**
 * The same options as `GatewayFunction` in infra/gateway-function.ts passes to NodejsFunction (ESM, minified,
 * `module` before `main`, the require shim, external source maps without sources, the SDK bundled), with the
 * target of its runtime, so that sizes are those of the assets `cdk deploy` uploads.
 */
const requireShimBanner = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

const cdkBundling: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  mainFields: ['module', 'main'],
  banner: { js: requireShimBanner },
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  logLevel: 'silent',
};

/**
 * Bundles go below node_modules/.cache: a variant that leaves the SDK out resolves it from there, as a function
 * without a bundled SDK resolves the runtime's.
 */
async function outputRoot(projectRoot: string): Promise<string> {
  const parent = join(projectRoot, 'node_modules', '.cache');
  await mkdir(parent, { recursive: true });
  return mkdtemp(join(parent, 'gateway-bundles-'));
}

async function bundleAndTime(
  root: string,
  entry: string,
  name: string,
  extra: BuildOptions = {},
): Promise<Omit<BundleFigures, 'functionId'>> {
  const outfile = join(root, name, 'index.mjs');
  const result = await build({ ...cdkBundling, ...extra, entryPoints: [entry], outfile });
  const initRunsMs: number[] = [];
  for (let index = 0; index < initRuns; index++) initRunsMs.push(await measureInit(outfile));
  return {
    bytes: (await stat(outfile)).size,
    initMs: percentile(initRunsMs, 50),
    initMinMs: Math.min(...initRunsMs),
    initRunsMs,
    heaviestInputs: heaviestPackages(result.metafile ?? { inputs: {}, outputs: {} }),
  };
}

/** Every function the stack deploys (the route table's and the scheduled ones), bundled as the stack bundles it. */
export async function measureBundles(projectRoot: string): Promise<BundleFigures[]> {
  const root = await outputRoot(projectRoot);
  try {
    const figures: BundleFigures[] = [];
    for (const functionId of [...functionIds, ...scheduledFunctionIds]) {
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
 * What-if figures for the chat-completions bundle, to size the fixes proposed for a bundle over budget without
 * touching the gateway's sources: zod imported as a namespace (`import * as z from 'zod'`, which lets esbuild
 * drop zod's locales and JSON-schema code that `import { z }` drags in whole), and the AWS SDK left to the
 * runtime (`bundleAwsSDK: false`).
 */
export async function measureBundleVariants(projectRoot: string): Promise<BundleVariant[]> {
  const root = await outputRoot(projectRoot);
  const entry = join(projectRoot, 'functions', 'chat-completions.ts');
  const sdkExternal: BuildOptions = { external: ['@aws-sdk/*', '@smithy/*'] };
  try {
    const variants: [string, BuildOptions][] = [
      ['as built today', {}],
      ['zod as a namespace import', { plugins: [zodNamespaceImport(projectRoot)] }],
      ['AWS SDK from the runtime', sdkExternal],
      ['both', { ...sdkExternal, plugins: [zodNamespaceImport(projectRoot)] }],
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

/** Rewrites the project's `import { z } from 'zod'` to `import * as z from 'zod'` while bundling. */
function zodNamespaceImport(projectRoot: string): Plugin {
  const ownSources = new RegExp(`^${projectRoot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(shared|functions)/.*\\.ts$`);
  return {
    name: 'zod-namespace-import',
    setup(esbuild) {
      esbuild.onLoad({ filter: ownSources }, async ({ path }) => ({
        contents: (await readFile(path, 'utf8'))
          .replaceAll("import * as z from 'zod';", "import * as z from 'zod';")
          .replaceAll("import type * as z from 'zod';", "import type * as z from 'zod';"),
        loader: 'ts',
      }));
    },
  };
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

/** Bytes of output per npm package (or `(project)` for the gateway's own code). */
function heaviestPackages(metafile: Metafile): { name: string; bytes: number }[] {
  const inputs = Object.entries(metafile.outputs).find(([path]) => path.endsWith('.mjs'))?.[1].inputs ?? {};
  const byPackage = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const name = match?.[1] ?? '(project)';
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return [...byPackage.entries()]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5);
}
