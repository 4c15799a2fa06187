import { mkdir, mkdtemp, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { bundleAliases, lambdaBundling } from './lambda-bundling.ts';

/**
 * The most bytes one function's bundle (its `index.mjs`, what the runtime loads at a cold start) may weigh:
 * bench/lambda-bundles.ts reports each bundle against it (docs/bundles.md says why no test enforces it today).
 * Decimal kilobytes: 400 KB = 400,000 bytes.
 * docs/bundles.md says how to keep code out of the bundles.
 */
export const lambdaBundleBudgetBytes = 400_000;

/** What NodejsFunction leaves out with `bundleAwsSDK: false`, for the runtime's copy to supply. */
export const awsSdkPackages = ['@aws-sdk/*', '@smithy/*'];

/**
 * The options `GatewayFunction` (infra/gateway-function.ts) passes to NodejsFunction, from the module both read,
 * in esbuild's terms and with the target NodejsFunction derives from the functions' Node 24 runtime, so that
 * sizes are those of the assets `cdk deploy` uploads.
 */
export const cdkBundling: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: lambdaBundling.format,
  mainFields: [...lambdaBundling.mainFields],
  banner: { js: lambdaBundling.banner },
  minify: lambdaBundling.minify,
  sourcemap: lambdaBundling.sourceMap,
  sourcesContent: lambdaBundling.sourcesContent,
  external: lambdaBundling.bundleAwsSDK ? [] : awsSdkPackages,
  alias: { ...bundleAliases },
  metafile: true,
  logLevel: 'silent',
};

/**
 * A folder for bundles below node_modules/.cache: a variant that leaves the SDK out resolves it from there, as a
 * function without a bundled SDK resolves the runtime's. The caller removes it.
 */
export async function bundleOutputRoot(projectRoot: string): Promise<string> {
  const parent = join(projectRoot, 'node_modules', '.cache');
  await mkdir(parent, { recursive: true });
  return mkdtemp(join(parent, 'gateway-bundles-'));
}

export interface BuiltBundle {
  outfile: string;
  bytes: number;
  /** The packages (or `(project)`) that weigh most in the bundle, heaviest first. */
  heaviestInputs: { name: string; bytes: number }[];
}

/** One entry bundled as the stack bundles it, into `<root>/<name>/index.mjs`. */
export async function buildLambdaBundle(
  root: string,
  entry: string,
  name: string,
  extra: BuildOptions = {},
): Promise<BuiltBundle> {
  const outfile = join(root, name, 'index.mjs');
  const result = await build({ ...cdkBundling, ...extra, entryPoints: [entry], outfile });
  return {
    outfile,
    bytes: (await stat(outfile)).size,
    heaviestInputs: heaviestPackages(result.metafile ?? { inputs: {}, outputs: {} }),
  };
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
