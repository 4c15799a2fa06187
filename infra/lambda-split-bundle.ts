import { join } from 'node:path';
import { bundleAliases, lambdaBundling, splitOutput } from './lambda-bundling.ts';

/**
 * The command that builds a function's asset split (infra/lambda-bundling.ts, `splitOutput`), run by
 * NodejsFunction's `afterBundling` hook: NodejsFunction always writes one file (`--outfile`, which esbuild's
 * splitting cannot use), so its `index.mjs` is written again, with the same options, as the entry of a split build
 * whose chunks go beside it. The options are those infra/lambda-bundle-build.ts gives the budget test and the bench.
 * (The OpenTelemetry module is a build of its own, infra/telemetry-bundle.ts: in this one, the code it shares with
 * the entry would go into shared chunks, and each name they share costs an export and an import in what init loads.)
 */
export function splitBundleCommand(projectRoot: string, entry: string, outputDirectory: string): string {
  const esbuild = join(projectRoot, 'node_modules', 'esbuild', 'bin', 'esbuild');
  const quote = (text: string) => `"${text.replace(/(["\\$`])/g, '\\$1')}"`;
  return [
    quote(esbuild),
    quote(`${splitOutput.functionEntryName}=${entry}`),
    '--bundle',
    '--platform=node',
    // NodejsFunction derives this target from the functions' Node 24 runtime.
    '--target=node24',
    `--format=${lambdaBundling.format}`,
    ...(lambdaBundling.minify ? ['--minify'] : []),
    ...(lambdaBundling.sourceMap ? ['--sourcemap'] : []),
    `--sources-content=${lambdaBundling.sourcesContent}`,
    `--main-fields=${lambdaBundling.mainFields.join(',')}`,
    `--banner:js=${quote(lambdaBundling.banner)}`,
    ...Object.entries(bundleAliases).map(([name, path]) => `--alias:${name}=${quote(path)}`),
    '--splitting',
    `--outdir=${quote(outputDirectory)}`,
    `--entry-names=${splitOutput.entryNames}`,
    `--chunk-names=${splitOutput.chunkNames}`,
    `--out-extension:.js=${splitOutput.extension}`,
    '--log-level=warning',
  ].join(' ');
}
