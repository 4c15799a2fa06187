import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildUsagePage, writeUsagePage } from '../../infra/usage-page-build.ts';

describe('the usage page build', () => {
  it('bundles the page with its chart library and loads nothing from elsewhere', async () => {
    const files = new Map((await buildUsagePage()).map((file) => [file.path, new TextDecoder().decode(file.body)]));
    expect([...files.keys()].sort()).toEqual(['', 'app.js', 'styles.css']);
    const script = files.get('app.js') ?? '';
    expect(script).toMatch(/Chart\.js v4\.\d+\.\d+/);
    expect(script).toContain('MIT License');
    const html = files.get('') ?? '';
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(references.filter((reference) => reference !== 'data:,')).toEqual([
      '/app/usage/styles.css',
      '/app/usage/app.js',
    ]);
  });

  it('writes a folder an S3 deployment can serve', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'usage-page-'));
    try {
      await writeUsagePage(folder);
      expect((await readdir(folder)).sort()).toEqual(['app.js', 'index.html', 'styles.css']);
      expect(await readFile(join(folder, 'index.html'), 'utf8')).toContain('<title>Usage');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
