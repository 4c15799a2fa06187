import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchors, headingSlug, markdownLinks } from '../support/markdown-links.ts';

/*
 * The README is the page a newcomer finishes: the two commands, the first call, the deploy, and links on. It stays
 * short, its commands are the ones CI runs, and every link in it and in docs/ leads somewhere that exists.
 */

const repository = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const readmeLineBudget = 200;

function documents(): string[] {
  const docsFolder = join(repository, 'docs');
  const docs = readdirSync(docsFolder)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(docsFolder, name));
  return [join(repository, 'README.md'), join(repository, 'bench/README.md'), ...docs];
}

/** What is wrong with each relative link of `file`: a missing file, or an anchor no heading of the target gives. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const link of markdownLinks(readFileSync(file, 'utf8'))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // https:, mailto: — outside the repository
    const [path = '', anchor] = link.target.split('#');
    const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    const where = `${relative(repository, file)}:${link.line} → ${link.target}`;
    if (!existsSync(target)) {
      broken.push(`${where}: no such file`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(target).isDirectory() || !target.endsWith('.md')) {
      broken.push(`${where}: an anchor into something that is not a Markdown file`);
    } else if (!headingAnchors(readFileSync(target, 'utf8')).has(anchor)) {
      broken.push(`${where}: no heading gives #${anchor}`);
    }
  }
  return broken;
}

describe('the link reader', () => {
  it('finds links in prose, wrapped or not, and none in code', () => {
    const text = [
      'See [the store](docs/store.md) and [Signed',
      'thinking](#signed-thinking).',
      '',
      '```sh',
      '# [not a link](nowhere.md)',
      '```',
      'and `[nor this](nowhere.md)`.',
    ].join('\n');
    expect(markdownLinks(text)).toEqual([
      { target: 'docs/store.md', line: 1 },
      { target: '#signed-thinking', line: 1 },
    ]);
  });

  it("gives each heading GitHub's anchor, a repeated one numbered, and none to a shell comment", () => {
    expect(headingSlug("Base URLs, as each provider's SDK takes them")).toBe(
      'base-urls-as-each-providers-sdk-takes-them',
    );
    expect(headingSlug('AWS WAF (optional)')).toBe('aws-waf-optional');
    expect(headingSlug('A wire format, in `one` place')).toBe('a-wire-format-in-one-place');
    const text = ['# Errors', '## Upgrading', '## Upgrading', '```sh', '# 1. a comment', '```'].join('\n');
    expect([...headingAnchors(text)]).toEqual(['errors', 'upgrading', 'upgrading-1']);
  });
});

describe('the documentation', () => {
  it('has every relative link of the README, bench/README.md and docs/ lead to a file and heading that exist', () => {
    const files = documents();
    expect(files.length).toBeGreaterThan(3);
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it('links every docs/ file from the README', () => {
    const readme = readFileSync(join(repository, 'README.md'), 'utf8');
    const linked = new Set(markdownLinks(readme).map((link) => link.target.split('#')[0]));
    const unlinked = documents()
      .filter((file) => file.includes(`${join(repository, 'docs')}/`))
      .map((file) => relative(repository, file))
      .filter((file) => !linked.has(file));
    expect(unlinked).toEqual([]);
  });

  it(`keeps the README within ${readmeLineBudget} lines`, () => {
    const lines = readFileSync(join(repository, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(readmeLineBudget);
  });

  it("gives the README's test command as the one CI runs, and only npm scripts that exist", () => {
    const ciCommands = readFileSync(join(repository, '.ci/run'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^npm\s/.test(line) && !/^npm ci\b/.test(line));
    expect(ciCommands).toEqual(['npm test']);

    const readme = readFileSync(join(repository, 'README.md'), 'utf8');
    const twoCommands = /## The two commands\s+```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = twoCommands.split('\n').map((line) => line.replace(/#.*$/, '').trim());
    expect(commands).toContain('npm install && npm start');
    expect(commands).toContain(ciCommands[0]);

    const scripts = Object.keys(JSON.parse(readFileSync(join(repository, 'package.json'), 'utf8')).scripts);
    const named = [...readme.matchAll(/\bnpm (?:run )?([a-z][\w:-]*)/g)]
      .map((match) => match[1] as string)
      .filter((name) => !['install', 'ci', 'run'].includes(name));
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });
});
