import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * One file of the built pages, relative to a static route's path (`/app/usage/<path>`, `/app/admin/<path>`).
 * Both routes serve the same files; each answers its own path with its own `indexFile`.
 */
export interface PageFile {
  path: string;
  contentType: string;
  body: Uint8Array;
}

const webRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'web');
/** In cascade order: the frame first, then the figures and the phone layout that overrides both, then the console. */
const styleSheets = ['page.css', 'usage-data.css', 'console.css'];
/** The HTML of each page; each loads its own entry script, which imports shared chunks beside it. */
const htmlFiles = ['index.html', 'admin.html'];

/**
 * Response headers of the pages and their assets, on both hosts (the CDK stack's response-headers policy carries
 * the same). The pages load nothing from elsewhere: scripts, styles and the chart library are their own.
 */
export const usagePageHeaders: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Entry names carry no content hash, so a browser revalidates instead of keeping an old build.
  'cache-control': 'no-cache',
};

/**
 * Builds both pages in one esbuild run: the usage view (`app.js`) and the console (`admin.js`), Preact and JSX
 * compiled by esbuild itself, with code splitting, so what both share is one chunk and the chart library
 * (Chart.js, from node_modules, no CDN) is a chunk of its own, loaded when a chart is first shown. Kept in memory
 * so the local host needs no build step and tests running side by side never race on a folder.
 */
export async function buildUsagePage(): Promise<PageFile[]> {
  const outdir = join(webRoot, 'dist-in-memory');
  const bundle = await build({
    entryPoints: { app: join(webRoot, 'src', 'usage', 'main.tsx'), admin: join(webRoot, 'src', 'admin', 'main.tsx') },
    bundle: true,
    splitting: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    write: false,
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    // Chart.js and Preact are MIT-licensed: their notices must travel with the copy.
    legalComments: 'eof',
    logLevel: 'silent',
  });
  if (bundle.outputFiles.length === 0) throw new Error('esbuild produced no bundle for the pages');
  const scripts = bundle.outputFiles.map((file) => ({
    path: basename(file.path),
    contentType: 'text/javascript; charset=utf-8',
    body: file.contents,
  }));
  // One stylesheet for the browser, kept as files of one concern each in the source.
  const [pages, styles] = await Promise.all([
    Promise.all(htmlFiles.map((name) => readFile(join(webRoot, name)))),
    Promise.all(styleSheets.map((name) => readFile(join(webRoot, 'styles', name), 'utf8'))),
  ]);
  return [
    ...htmlFiles.map((name, index) => ({
      path: name,
      contentType: 'text/html; charset=utf-8',
      body: pages[index] as Uint8Array,
    })),
    ...scripts,
    { path: 'styles.css', contentType: 'text/css; charset=utf-8', body: new TextEncoder().encode(styles.join('\n')) },
  ];
}

/** Writes the built pages to a folder for an S3 deployment; each route's index file is among them. */
export async function writeUsagePage(outputDirectory: string): Promise<string[]> {
  const files = await buildUsagePage();
  await mkdir(outputDirectory, { recursive: true });
  await Promise.all(files.map((file) => writeFile(join(outputDirectory, file.path), file.body)));
  return files.map((file) => file.path);
}
