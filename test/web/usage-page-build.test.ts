import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildUsagePage, writeUsagePage } from '../../infra/usage-page-build.ts';

const decode = (body: Uint8Array) => new TextDecoder().decode(body);

/** The scripts a page's entry loads before it runs: itself and the chunks it imports statically, transitively. */
function firstLoad(files: Map<string, string>, entry: string): string[] {
  const loaded = new Set<string>();
  const visit = (name: string) => {
    if (loaded.has(name)) return;
    loaded.add(name);
    const source = files.get(name) ?? '';
    // Static imports only (`import{…}from"./chunk-….js"`); `import("./…")` is loaded later, when first needed.
    for (const match of source.matchAll(/(?:^|[;}\s])import\s*(?:[^()'"]*?from\s*)?["']\.\/([^"']+)["']/g)) {
      if (match[1]) visit(match[1]);
    }
  };
  visit(entry);
  return [...loaded];
}

describe('the page build (usage view and console)', () => {
  it('bundles both pages with their libraries and loads nothing from elsewhere', async () => {
    const files = new Map((await buildUsagePage()).map((file) => [file.path, decode(file.body)]));
    const names = [...files.keys()];
    expect(names).toEqual(expect.arrayContaining(['index.html', 'admin.html', 'app.js', 'admin.js', 'styles.css']));
    expect(
      names.filter(
        (name) => !/^(index\.html|admin\.html|app\.js|admin\.js|styles\.css|chunk-[A-Z0-9]+\.js)$/.test(name),
      ),
    ).toEqual([]);
    const scripts = [...files.entries()].filter(([name]) => name.endsWith('.js')).map(([, body]) => body);
    const chartChunk = scripts.find((script) => /Chart\.js v4\.\d+\.\d+/.test(script));
    expect(chartChunk).toContain('MIT License');
    for (const [page, script, path] of [
      ['index.html', 'app.js', '/app/usage'],
      ['admin.html', 'admin.js', '/app/admin'],
    ] as const) {
      const references = [...(files.get(page) ?? '').matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
      expect(references.filter((reference) => reference !== 'data:,')).toEqual([
        `${path}/styles.css`,
        `${path}/${script}`,
      ]);
    }
  });

  it('keeps each page under 150 KB of compressed JavaScript at first load, the charts left for later', async () => {
    const files = new Map((await buildUsagePage()).map((file) => [file.path, decode(file.body)]));
    for (const entry of ['app.js', 'admin.js']) {
      const loaded = firstLoad(files, entry);
      expect(loaded.some((name) => /Chart\.js v4/.test(files.get(name) ?? ''))).toBe(false);
      const compressed = loaded.reduce((sum, name) => sum + gzipSync(files.get(name) ?? '').byteLength, 0);
      expect(compressed).toBeLessThanOrEqual(150 * 1024);
    }
  });

  it('writes a folder an S3 deployment can serve', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'usage-page-'));
    try {
      const written = await writeUsagePage(folder);
      expect((await readdir(folder)).sort()).toEqual([...written].sort());
      expect(await readFile(join(folder, 'index.html'), 'utf8')).toContain('<title>Usage');
      expect(await readFile(join(folder, 'admin.html'), 'utf8')).toContain('<title>Console');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
