import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The folders of the domain: they speak to the store through its port only, whatever engine is behind it. */
const domainFolders = ['accounting', 'usage', 'auth', 'admin', 'pipeline', 'config', 'http', 'catalog'];
const sharedRoot = new URL('../../shared/', import.meta.url);

/** What an engine is made of: the SDKs and the engines' own folders. */
const engineImports = [
  /^@aws-sdk\//,
  /^better-sqlite3$/,
  /\/store\/(dynamodb|sqlite|upgrade)\//,
  /\/store\/table-definitions\.ts$/,
];

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

function importsOf(source: string): string[] {
  return [...source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map(
    (match) => match[1] as string,
  );
}

describe('the store port boundary', () => {
  it.each(domainFolders)('shared/%s imports no store engine and no database SDK', async (folder) => {
    const files = await sourceFiles(new URL(folder, sharedRoot).pathname);
    expect(files.length).toBeGreaterThan(0);
    const offending: string[] = [];
    for (const file of files) {
      for (const specifier of importsOf(await readFile(file, 'utf8'))) {
        if (engineImports.some((pattern) => pattern.test(specifier))) offending.push(`${file}: ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('sees an engine import where there is one', async () => {
    const engineFile = new URL('store/dynamodb/dynamo-admission.ts', sharedRoot).pathname;
    expect(importsOf(await readFile(engineFile, 'utf8')).some((specifier) => /^@aws-sdk\//.test(specifier))).toBe(true);
  });
});
