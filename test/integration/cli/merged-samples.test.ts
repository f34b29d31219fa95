/**
 * The README's examples with the merged KG the README builds (three public Douban sources + the bundled
 * demo KG, "Build the knowledge graph"), through bin/filmkw (build first): on the bundled samples
 * (datasets/samples) F1@5 of the default preset is at least that with the demo KG; the quick start's
 * first record and the curl example give the same keywords; no junk alias (`台)`, `港)`) is a KG name.
 * Needs ../shared/data/kg (skipped with a message when absent).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const KG = join(root, '..', 'shared', 'data', 'kg');
const SOURCES = [
  `openkg:${join(KG, 'openkg-douban-movie')}`,
  `kgqa:${join(KG, 'douban-kgqa-small')}`,
  `douban-csv:${join(KG, 'douban-movies-2065', 'douban_all_movies.csv')}`,
  'demo',
];
const SKIP = !existsSync(join(KG, 'openkg-douban-movie'))
  ? 'the merged-KG sample test needs ../shared/data/kg (the public Douban sources), absent here'
  : !existsSync(join(root, 'dist', 'cli', 'main.js'))
    ? 'needs `npm run build` (dist/)'
    : false;
const SAMPLES = join(root, 'datasets', 'samples', 'reviews.jsonl');

const run = (args: string[], input?: string) => {
  const r = spawnSync(process.execPath, ['bin/filmkw', ...args], { cwd: root, encoding: 'utf8', input, maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

let dir = '';
let merged = '';
before(() => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'filmkw-merged-samples-'));
  merged = join(dir, 'merged.fkg');
  const r = run(['kg', 'import', '--out', merged, ...SOURCES]);
  assert.equal(r.status, 0, r.stderr);
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const f1 = (kg: string[]) => {
  const r = run(['eval', '--gold', SAMPLES, '--preset', 'filmkw-rerank', '--json', ...kg]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).macro as Record<string, { f1: number }>;
};

const words = (kg: string[], input: string[], top: number) => {
  const r = run(['tag', '--top', String(top), ...kg, ...input]);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l).keywords as { word: string }[]).map((k) => k.word));
};

test('bundled samples: F1@5 with the merged KG is at least F1@5 with the demo KG (default preset)', { skip: SKIP }, () => {
  const demo = f1([]);
  const withMerged = f1(['--kg', merged]);
  console.log(`samples F1@5: demo KG ${demo['5'].f1.toFixed(4)}, merged KG ${withMerged['5'].f1.toFixed(4)}`);
  assert.ok(withMerged['5'].f1 >= demo['5'].f1 - 1e-9, `merged ${withMerged['5'].f1} < demo ${demo['5'].f1}`);
});

test("README examples: the quick start's first record and the curl example give the same keywords with the merged KG", { skip: SKIP }, () => {
  const [first] = words([], [SAMPLES], 5);
  const [firstMerged] = words(['--kg', merged], [SAMPLES], 5);
  assert.deepEqual(firstMerged, first);
  assert.deepEqual(first, ['长津湖', '伍万里', '易烊千玺', '吴京', '伍千里']);
  const curl = ['--format', 'txt', '-'];
  const text = '《长津湖》里易烊千玺扮演的伍万里';
  const r = run(['tag', '--top', '3', '--kg', merged, ...curl], text);
  const d = run(['tag', '--top', '3', ...curl], text);
  assert.equal(r.status, 0, r.stderr);
  const kw = (s: string) => (JSON.parse(s).keywords as { word: string }[]).map((k) => k.word);
  assert.deepEqual(kw(r.stdout), kw(d.stdout));
  assert.ok(!kw(r.stdout).includes('扮演'));
});

test('merged KG: the junk aliases of split region tags are no names of the KG (kg show finds no entity of that name)', { skip: SKIP }, () => {
  for (const junk of ['台)', '港)']) {
    const r = run(['kg', 'show', junk, '--kg', merged, '--json']);
    assert.equal(r.status, 3, r.stdout);
    assert.match(r.stderr, new RegExp(`^filmkw: kg show: no entity has the name, alias or id "${junk.replace(')', '\\)')}"`));
  }
  const r = run(['kg', 'show', '国定杀戮日', '--kg', merged, '--json']);
  assert.deepEqual((JSON.parse(r.stdout).matches as { name: string }[]).map((m) => m.name), ['人类清除计划']);
});
