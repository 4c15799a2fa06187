import { join } from 'node:path';

/** The file a function's entry imports its OpenTelemetry module from (functions/gateway-runtime.ts). */
export const telemetryBundleFile = 'otel-telemetry.mjs';

/**
 * The commands that build the OpenTelemetry module beside a function's entry, after NodejsFunction has bundled the
 * entry. The SDK and its exporters live in their own file: the entry's bundle stays within its size budget and its
 * cold start does not load them, and the file is imported only when the stage configures an OTLP endpoint.
 */
export function telemetryBundleCommands(projectRoot: string, outputDirectory: string): string[] {
  const esbuild = join(projectRoot, 'node_modules', 'esbuild', 'bin', 'esbuild');
  const entry = join(projectRoot, 'shared', 'observability', 'otel', 'otel-telemetry.ts');
  const quote = (text: string) => `"${text.replace(/(["\\$`])/g, '\\$1')}"`;
  return [
    [
      quote(esbuild),
      quote(entry),
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--target=node24',
      '--minify',
      '--main-fields=module,main',
      `--outfile=${quote(join(outputDirectory, telemetryBundleFile))}`,
      // The OTLP exporters' CommonJS dependencies call `require` inside the ESM output.
      `--banner:js=${quote("import { createRequire } from 'module'; const require = createRequire(import.meta.url);")}`,
      '--log-level=warning',
    ].join(' '),
  ];
}
