import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '#contract/routes';
import { FUNCTIONS } from '#lib/functions';

/**
 * The house's arrows, read from the import graph (the TypeScript preprocessor lists every static, dynamic and
 * type-only import):
 *   composers (bin, lib, local, admin-cli, ingest, smoke, console, bench, lambdas/admin, lambdas/upkeep, lambdas/discovery,
 *   lambdas/producers)
 *     → features (lambdas/<family>: the /v1 families, token, assets, webhooks, mail-events)
 *     → kernel (lambdas/platform → domain → data → contract)
 * A feature imports the kernel and itself only; the kernel imports no feature and no composer; a kernel module
 * serves two rooms or more (or the kernel itself), so a module only one feature uses lives in that feature.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KERNEL_ROOMS = ['contract', 'data', 'domain', 'platform'] as const;
const RANK: Record<string, number> = { contract: 0, data: 1, domain: 2, platform: 3 };
/**
 * The function folders that compose features: the admin API, the scheduled upkeep (the webhook sweeper),
 * discovery, the catch-all that gathers every family's routes (lambdas/discovery/all-routes.ts), and the producer
 * API, which writes several features' records.
 */
const COMPOSERS = new Set(['admin', 'upkeep', 'discovery', 'producers']);
/** The most lines a source file of lambdas/ holds. */
const MAX_FILE_LINES = 400;
/** Every other function's folder: the /v1 families, token, assets, webhooks, mail-events (lib/functions.ts). */
const FAMILY_FOLDERS = new Set<string>(
  [...FAMILIES, ...Object.values(FUNCTIONS).map((f) => f.entry.split('/')[0]!)].filter((folder) => !COMPOSERS.has(folder)),
);

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

type Edge = { from: string; to: string; specifier: string };

/** package.json's `imports`: `#contract/*` → `./lambdas/contract/*.ts`, … */
const SUBPATHS: Record<string, string> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).imports;

/** A specifier's file, or null for a package (node:, npm). */
function resolveSpecifier(from: string, specifier: string): string | null {
  let path: string;
  if (specifier.startsWith('#')) {
    const [pattern, target] = Object.entries(SUBPATHS).find(([key]) => specifier.startsWith(key.replace('*', '')))!;
    path = normalize(target.replace('*', specifier.slice(pattern.length - 1)));
  } else if (specifier.startsWith('.')) {
    path = normalize(join(dirname(from), specifier)).replace(/\.js$/, '.ts');
  } else {
    return null;
  }
  if (!existsSync(join(ROOT, path)) && existsSync(join(ROOT, path.replace(/\.ts$/, ''), 'index.ts'))) {
    path = join(path.replace(/\.ts$/, ''), 'index.ts');
  }
  return path;
}

/** Runtime code, the CDK app, the local runtime, the operators' tools, the console, tests and benches. */
const TOOL_FOLDERS = ['admin-cli', 'ingest', 'smoke'] as const;
const FILES = ['lambdas', 'lib', 'local', ...TOOL_FOLDERS, 'bin', 'console/src', 'test', 'bench'].flatMap(tsFiles);
const EDGES: Edge[] = FILES.flatMap((from) =>
  ts
    .preProcessFile(readFileSync(join(ROOT, from), 'utf8'), true, true)
    .importedFiles.map(({ fileName: specifier }) => ({ from, specifier, to: resolveSpecifier(from, specifier) }))
    .filter((edge): edge is Edge => edge.to !== null),
);

/** Where a file lives: 'contract' … 'platform', 'family:<name>', 'admin', 'cdk', 'lib', 'local', 'admin-cli', 'ingest', 'smoke', 'bin', 'test', 'bench'. */
function roomOf(file: string): string {
  const [top, second] = file.split('/');
  if (top === 'lambdas') {
    if ((KERNEL_ROOMS as readonly string[]).includes(second!)) return second!;
    if (FAMILY_FOLDERS.has(second!)) return `family:${second}`;
    return second!;
  }
  if (top === 'lib') {
    if (file === 'lib/stack.ts' || second === 'constructs') return 'cdk';
    return 'lib';
  }
  return top!;
}

const show = (edges: Edge[]) => edges.map((e) => `${e.from} → ${e.specifier}`);

describe('layout: every arrow points down', () => {
  it('reads a real graph whose every local import resolves to a file', () => {
    expect(FILES.length).toBeGreaterThan(150);
    expect(EDGES.length).toBeGreaterThan(500);
    expect(show(EDGES.filter((e) => !existsSync(join(ROOT, e.to))))).toEqual([]);
  });

  it('has no folder in lambdas/ outside the kernel rooms, the features and admin', () => {
    const folders = readdirSync(join(ROOT, 'lambdas')).filter((n) => statSync(join(ROOT, 'lambdas', n)).isDirectory());
    const known = new Set<string>([...KERNEL_ROOMS, ...FAMILY_FOLDERS, ...COMPOSERS]);
    expect(folders.filter((f) => !known.has(f))).toEqual([]);
  });

  it('has no circle in runtime, infrastructure, console or bench code', () => {
    const next = new Map<string, string[]>();
    for (const e of EDGES) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    const state = new Map<string, 'open' | 'done'>();
    const circles: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const to of next.get(file) ?? []) visit(to, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of FILES.filter((f) => !f.startsWith('test/'))) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('orders the kernel rooms contract ← data ← domain ← platform (contract imports none of them)', () => {
    const wrong = EDGES.filter((e) => {
      const [from, to] = [roomOf(e.from), roomOf(e.to)];
      return from in RANK && to in RANK && from !== to && RANK[to]! > RANK[from]!;
    });
    expect(show(wrong)).toEqual([]);
  });

  it('never imports a feature or a composer from the kernel', () => {
    const wrong = EDGES.filter((e) => roomOf(e.from) in RANK && !(roomOf(e.to) in RANK));
    expect(show(wrong)).toEqual([]);
  });

  it('never imports another feature or a composer from a feature', () => {
    const wrong = EDGES.filter((e) => {
      const [from, to] = [roomOf(e.from), roomOf(e.to)];
      return from.startsWith('family:') && to !== from && !(to in RANK);
    });
    expect(show(wrong)).toEqual([]);
  });

  it('never imports lib/ or bin/ (or tests and benches) from lambdas/', () => {
    const wrong = EDGES.filter((e) => e.from.startsWith('lambdas/') && !e.to.startsWith('lambdas/'));
    expect(show(wrong)).toEqual([]);
  });

  it('keeps the local runtime out of the CDK files, directly and through what they import', () => {
    const next = new Map<string, string[]>();
    for (const e of EDGES) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    const reached = new Set<string>();
    const walk = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const to of next.get(file) ?? []) walk(to);
    };
    for (const file of FILES.filter((f) => roomOf(f) === 'cdk')) walk(file);
    expect([...reached].filter((f) => roomOf(f) === 'local')).toEqual([]);
  });

  it("keeps lib/ the CDK app: it imports neither the local runtime nor the operators' tools", () => {
    const outside = new Set<string>(['local', ...TOOL_FOLDERS]);
    const wrong = EDGES.filter((e) => e.from.startsWith('lib/') && outside.has(roomOf(e.to)));
    expect(show(wrong)).toEqual([]);
    expect(FILES.filter((f) => f.startsWith('lib/') && outside.has(f.split('/')[1]!))).toEqual([]);
  });

  it('keeps in the kernel only what two rooms or more use (or the kernel itself)', () => {
    const users = new Map<string, Set<string>>();
    for (const e of EDGES.filter((e) => !['test', 'bench'].includes(roomOf(e.from)) && roomOf(e.from) !== roomOf(e.to))) {
      users.set(e.to, (users.get(e.to) ?? new Set()).add(roomOf(e.from) in RANK ? 'kernel' : roomOf(e.from)));
    }
    const kernelFiles = FILES.filter((f) => roomOf(f) in RANK);
    const sameRoomUsed = new Set(EDGES.filter((e) => roomOf(e.from) === roomOf(e.to) && roomOf(e.to) in RANK).map((e) => e.to));
    const single = kernelFiles.filter((f) => !sameRoomUsed.has(f) && !users.get(f)?.has('kernel') && (users.get(f)?.size ?? 0) < 2);
    expect(single.map((f) => `${f}: ${[...(users.get(f) ?? [])].join(', ') || 'no room'}`)).toEqual([]);
  });

  it('reaches a kernel room from outside it by its #subpath, never by a relative ladder', () => {
    const wrong = EDGES.filter((e) => roomOf(e.to) in RANK && roomOf(e.from) !== roomOf(e.to) && e.specifier.startsWith('.'));
    expect(show(wrong)).toEqual([]);
    // Nor any other room by a ../../ ladder: package.json's imports name them (#lambdas/*, #lib/*).
    const ladders = EDGES.filter((e) => e.specifier.startsWith('../../'));
    expect(show(ladders)).toEqual([]);
  });

  it('keeps every source file of lambdas/ within 400 lines, so rooms split along seams rather than grow', () => {
    const long = tsFiles('lambdas')
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });
});
