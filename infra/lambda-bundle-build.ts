import { mkdir, mkdtemp } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { bundleAliases, lambdaBundling, splitOutput } from './lambda-bundling.ts';

/**
 * The most bytes one function's cold start may load: its `index.mjs` and the chunks that file imports statically.
 * test/infra/lambda-bundle-budget.test.ts fails the build past it; bench/lambda-bundles.ts reports each function
 * against it. Decimal kilobytes: 400 KB = 400,000 bytes. docs/bundles.md says how to keep code out of the bundles.
 */
export const lambdaBundleBudgetBytes = 400_000;

/**
 * The most bytes one lazily loaded part of a function may add when a request first needs it (the files one
 * `await import()` loads beyond what init loaded): it is loaded on a request's path, so it is kept well below the
 * init budget.
 */
export const lazyModuleBudgetBytes = 150_000;

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
  splitting: true,
  entryNames: splitOutput.entryNames,
  chunkNames: splitOutput.chunkNames,
  outExtension: { '.js': splitOutput.extension },
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
  /** The entry's file, `<root>/<name>/index.mjs`. */
  outfile: string;
  /** What a cold start loads: the entry's file and every chunk it imports statically, directly or not. */
  bytes: number;
  /** Those files, relative to the bundle's folder. */
  initFiles: string[];
  /**
   * Each lazily loaded part: a file an `await import()` loads, and what it adds to what init loaded (the file and
   * the chunks it imports statically that init did not load).
   */
  lazyModules: { file: string; bytes: number; sources: string[] }[];
  /** The packages (or `(project)`) that weigh most in what init loads, heaviest first. */
  heaviestInputs: { name: string; bytes: number }[];
}

/** One entry bundled as the stack bundles it (infra/lambda-split-bundle.ts), into `<root>/<name>/index.mjs` and its chunks. */
export async function buildLambdaBundle(
  root: string,
  entry: string,
  name: string,
  extra: BuildOptions = {},
): Promise<BuiltBundle> {
  const outdir = join(root, name);
  const result = await build({
    ...cdkBundling,
    ...extra,
    entryPoints: { [splitOutput.functionEntryName]: entry },
    outdir,
  });
  const metafile = result.metafile ?? { inputs: {}, outputs: {} };
  const outputs = Object.keys(metafile.outputs).filter((path) => path.endsWith(splitOutput.extension));
  const outputNamed = (file: string) => outputs.find((path) => resolve(path) === join(outdir, file));
  const outfile = join(outdir, `${splitOutput.functionEntryName}${splitOutput.extension}`);
  const entryOutput = outputNamed(`${splitOutput.functionEntryName}${splitOutput.extension}`);
  if (!entryOutput) throw new Error(`esbuild wrote no entry file for ${name}`);
  const init = staticClosure(metafile, [entryOutput]);
  const bytesOf = (paths: Iterable<string>) =>
    [...paths].reduce((sum, path) => sum + (metafile.outputs[path]?.bytes ?? 0), 0);
  const dynamicTargets = new Set(
    outputs.flatMap((path) =>
      (metafile.outputs[path]?.imports ?? [])
        .filter((item) => item.kind === 'dynamic-import' && !item.external)
        .map((item) => item.path),
    ),
  );
  const lazyModules = [...dynamicTargets].map((path) => {
    const added = [...staticClosure(metafile, [path])].filter((file) => !init.has(file));
    return {
      file: relative(outdir, resolve(path)),
      bytes: bytesOf(added),
      sources: Object.keys(metafile.outputs[path]?.inputs ?? {}).filter((input) => !input.includes('node_modules')),
    };
  });
  return {
    outfile,
    bytes: bytesOf(init),
    initFiles: [...init].map((path) => relative(outdir, resolve(path))),
    lazyModules,
    heaviestInputs: heaviestPackages(metafile, init),
  };
}

/** The output files these load: themselves and what they import statically, transitively. */
function staticClosure(metafile: Metafile, starts: string[]): Set<string> {
  const reached = new Set<string>();
  const pending = [...starts];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (reached.has(path)) continue;
    reached.add(path);
    for (const item of metafile.outputs[path]?.imports ?? []) {
      if (item.kind === 'import-statement' && !item.external) pending.push(item.path);
    }
  }
  return reached;
}

/** Bytes of output per npm package (or `(project)` for the gateway's own code), over these output files. */
function heaviestPackages(metafile: Metafile, files: Set<string>): { name: string; bytes: number }[] {
  const byPackage = new Map<string, number>();
  for (const file of files) {
    for (const [path, { bytesInOutput }] of Object.entries(metafile.outputs[file]?.inputs ?? {})) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const name = match?.[1] ?? '(project)';
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...byPackage.entries()]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5);
}
