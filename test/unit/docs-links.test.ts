import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link of the documentation (README.md, CHANGELOG.md, every .md under docs/, bench/README.md) names a file that
 * exists, and an anchor names a heading of that file, slugged as GitHub does. Moving a section to another page
 * without moving its links fails here.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const PAGES = [
  'README.md',
  'CHANGELOG.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
];

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading ids: lower case, punctuation dropped, each space a hyphen; a repeat gets -1, -2, … */
function slugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, text] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = text!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

type Link = { page: string; target: string };

function links(page: string): Link[] {
  const text = prose(readFileSync(join(ROOT, page), 'utf8'));
  return [...text.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => ({ page, target }));
}

const ALL = PAGES.flatMap(links);

describe('documentation links', () => {
  it('reads the pages and finds their links', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'bench/README.md', 'docs/operations.md', 'docs/decisions/README.md']));
    expect(ALL.length).toBeGreaterThan(100);
  });

  it('points every relative link at a file that exists', () => {
    const broken = ALL.filter(({ page, target }) => {
      const path = decodeURIComponent(target.split('#')[0]!);
      return path !== '' && !existsSync(normalize(join(ROOT, dirname(page), path)));
    });
    expect(broken.map(({ page, target }) => `${page} → ${target}`)).toEqual([]);
  });

  it('points every anchor at a heading of its page', () => {
    const cache = new Map<string, Set<string>>();
    const broken = ALL.filter(({ page, target }) => {
      const hash = target.indexOf('#');
      if (hash < 0) return false;
      const path = target.slice(0, hash);
      const file = path === '' ? join(ROOT, page) : normalize(join(ROOT, dirname(page), decodeURIComponent(path)));
      if (!existsSync(file) || statSync(file).isDirectory() || !file.endsWith('.md')) return false;
      if (!cache.has(file)) cache.set(file, slugs(readFileSync(file, 'utf8')));
      return !cache.get(file)!.has(decodeURIComponent(target.slice(hash + 1)));
    });
    expect(broken.map(({ page, target }) => `${page} → ${target}`)).toEqual([]);
  });

  it('slugs headings as GitHub does', () => {
    expect([...slugs('# API Gateway: an HTTP API, and what a client sees\n## Kitchen (24)\n## A — b\n## Kitchen (24)\n')]).toEqual([
      'api-gateway-an-http-api-and-what-a-client-sees',
      'kitchen-24',
      'a--b',
      'kitchen-24-1',
    ]);
  });
});
