// The README and docs/ as a reader meets them: the README fits a screen or two, its links and images resolve to
// files of the repository (the images small: they ship in every .vsix), and no table is cut by a paragraph.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO } from '../support/paths';

const DOCS = ['README.md', 'CHANGELOG.md', ...readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (f: string) => readFileSync(join(REPO, f), 'utf8');
/** Markdown outside code blocks. */
const prose = (text: string) => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

describe('README and docs', () => {
  it('the README is short: what it is, a picture, install, an example, the two commands, links', () => {
    const readme = read('README.md');
    assert.ok(readme.split('\n').length <= 100, `${readme.split('\n').length} lines`);
    for (const part of ['## Install', '## In five lines', '## Develop', 'npm test', '## Documentation']) assert.ok(readme.includes(part), part);
  });

  const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
  for (const f of DOCS) {
    it(`${f}: every \`npm run\` script it names exists, and every file or folder of the repository it names`, () => {
      const text = read(f);
      for (const [, script] of text.matchAll(/npm run ([\w:.-]+)/g)) assert.ok(scripts.includes(script), `${f}: npm run ${script} is not a script of package.json`);
      // Lines about DESIGN.md name its target layout, not ours; NAME, DIR, <x>, * and … are placeholders.
      for (const line of text.split('\n').filter((l) => !l.includes('DESIGN.md'))) {
        for (const [, named] of line.matchAll(/`((?:src|test|docs|webview|media|\.ci)\/[^`\s]*)`/g)) {
          if (/[<>*{}[\]…]|\.\.\.|\b[A-Z]{2,}\b/.test(named)) continue;
          assert.ok(existsSync(join(REPO, named.replace(/[.,:;)]+$/, ''))), `${f}: ${named} does not exist`);
        }
      }
    });

    it(`${f}: relative links and images point at files that exist; images are small PNGs`, () => {
      for (const m of prose(read(f)).matchAll(/(!?)\[[^\]]*\]\(([^)\s]+)\)/g)) {
        const [, image, target] = m;
        if (/^(https?:|mailto:|#)/.test(target)) continue;
        const path = join(REPO, dirname(f), target.split('#')[0]);
        assert.ok(existsSync(path), `${f}: ${target} does not exist`);
        if (image) {
          assert.match(target, /\.png$/);
          assert.ok(statSync(path).size < 150_000, `${target}: ${statSync(path).size} bytes`);
        }
      }
    });

    it(`${f}: every table is whole (a block of | lines starts with its header and separator)`, () => {
      const lines = prose(read(f)).split('\n');
      for (let i = 0; i < lines.length; i++) {
        if (!lines[i].startsWith('|') || lines[i - 1]?.startsWith('|')) continue;
        assert.match(lines[i + 1] ?? '', /^\|[\s:|-]+\|$/, `${f}: the table at "${lines[i].slice(0, 60)}" has no header separator: a table cut in two?`);
      }
    });
  }
});
