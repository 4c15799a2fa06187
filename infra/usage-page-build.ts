import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** One file of the built usage page, relative to the page's path (`/app/usage/<path>`; '' is the page itself). */
export interface PageFile {
  path: string;
  contentType: string;
  body: Uint8Array;
}

const webRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'web');
/** In cascade order: the frame first, then the figures and the phone layout that overrides both. */
const styleSheets = ['page.css', 'usage-data.css'];

/**
 * Response headers of the page and its assets, on both hosts (the CDK stack's response-headers policy should
 * carry the same). The page loads nothing from elsewhere: scripts, styles and the chart library are its own.
 */
export const usagePageHeaders: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Asset names carry no content hash, so a browser revalidates instead of keeping an old build.
  'cache-control': 'no-cache',
};

/**
 * Builds the page: web/src bundled with its chart library (Chart.js, from node_modules, no CDN) into one
 * minified `app.js`, beside `index.html` and `styles.css`. Kept in memory so the local host needs no build
 * step and tests running side by side never race on a folder.
 */
export async function buildUsagePage(): Promise<PageFile[]> {
  const bundle = await build({
    entryPoints: [join(webRoot, 'src', 'main.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    platform: 'browser',
    write: false,
    outfile: 'app.js',
    // Chart.js is MIT-licensed: its notice must travel with the copy.
    legalComments: 'eof',
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0];
  if (!script) throw new Error('esbuild produced no bundle for the usage page');
  // One stylesheet for the browser, kept as two files of one concern each in the source.
  const [html, ...styles] = await Promise.all([
    readFile(join(webRoot, 'index.html')),
    ...styleSheets.map((name) => readFile(join(webRoot, 'styles', name), 'utf8')),
  ]);
  const css = new TextEncoder().encode(styles.join('\n'));
  return [
    { path: '', contentType: 'text/html; charset=utf-8', body: html },
    { path: 'app.js', contentType: 'text/javascript; charset=utf-8', body: script.contents },
    { path: 'styles.css', contentType: 'text/css; charset=utf-8', body: css },
  ];
}

/**
 * Writes the built page to a folder for an S3 deployment: the page itself as `index.html` (CloudFront answers
 * `/app/usage` with it), its assets beside it.
 */
export async function writeUsagePage(outputDirectory: string): Promise<string[]> {
  const files = await buildUsagePage();
  await mkdir(outputDirectory, { recursive: true });
  await Promise.all(files.map((file) => writeFile(join(outputDirectory, file.path || 'index.html'), file.body)));
  return files.map((file) => file.path || 'index.html');
}
