/**
 * scripts/merged-kg.mjs, the merged-KG cache of train:rerank, experiments, corpus:stats, rerank-heldout and
 * the benches: the snapshot's name holds a fingerprint of what builds it, so a changed builder input (a KG
 * source file, a built module of the import, the data the import reads) gives another file, built anew,
 * and an unchanged one reuses the file without a build. The fingerprint is checked on a copy of the
 * repository's dist/ (so that a module can be changed without touching the real one); the build runs
 * bin/filmkw on small fixture sources laid out as ../shared/data/kg. Needs `npm run build` (dist/).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadKg } from '../../../src/kg/load.js';
import { STALE_DAYS, ensureMergedKg, importClosure, mergedKgFingerprint, mergedKgPath, pruneStaleMergedKgs } from '../../../scripts/merged-kg.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const SKIP = existsSync(join(root, 'dist', 'kg', 'import.js')) ? false : 'needs `npm run build` (dist/)';
const FX = join(root, 'test', 'fixtures', 'kg-sources');

/** A data directory laid out as ../shared/data/kg, holding the small fixture sources. */
function fixtureData(dir: string): string {
  const kg = join(dir, 'data', 'kg');
  cpSync(join(FX, 'openkg'), join(kg, 'openkg-douban-movie'), { recursive: true });
  cpSync(join(FX, 'kgqa'), join(kg, 'douban-kgqa-small'), { recursive: true });
  mkdirSync(join(kg, 'douban-movies-2065'), { recursive: true });
  cpSync(join(FX, 'douban', 'movies.csv'), join(kg, 'douban-movies-2065', 'douban_all_movies.csv'));
  return join(dir, 'data');
}

/** A repository whose dist/ is a copy (changeable) and whose other parts are the real ones. */
function fakeRoot(dir: string): string {
  const r = join(dir, 'repo');
  mkdirSync(r);
  cpSync(join(root, 'dist'), join(r, 'dist'), { recursive: true });
  for (const p of ['dictionaries', 'kg', 'package.json', 'package-lock.json']) symlinkSync(join(root, p), join(r, p));
  return r;
}

test('the fingerprint follows the import code, the data it reads and the sources, not the rest of dist/', { skip: SKIP }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-merged-fp-'));
  try {
    const data = fixtureData(dir);
    const r = fakeRoot(dir);
    const fp = () => mergedKgFingerprint({ root: r, data });
    const first = fp();
    assert.match(first, /^[0-9a-f]{16}$/u);
    assert.equal(fp(), first, 'the same inputs, the same fingerprint');
    assert.equal(mergedKgPath({ root: r, data, tmp: '/x' }), join('/x', `filmkw-merged-${first}.fkg`));

    // the closure holds the import's modules (the builder, the name comparison, the sources' readers) and not the pipeline's
    const closure = importClosure(join(r, 'dist'), ['kg/import.js', 'kg/snapshot.js', 'lexicon/title-policy.js']).map((f) => f.slice(join(r, 'dist').length + 1));
    for (const m of ['kg/builder.js', 'kg/resolve.js', 'kg/played.js', 'kg/sources/openkg.js', 'kg/sources/douban-csv.js', 'kg/model.js']) assert.ok(closure.includes(m), m);
    assert.ok(!closure.some((f) => f.startsWith('pipeline/') || f.startsWith('eval/') || f.startsWith('serve/')), closure.join(' '));

    // a module outside the import's closure changes nothing
    appendFileSync(join(r, 'dist', 'pipeline', 'rerank.js'), '\n// changed\n');
    assert.equal(fp(), first);
    // each builder input changes it: a module of the import, the kg command, a source file, the demo KG's data
    const seen = new Set([first]);
    const change = (what: string, f: string) => {
      appendFileSync(f, '\n');
      const now = fp();
      assert.ok(!seen.has(now), `${what}: the fingerprint did not change`);
      seen.add(now);
    };
    change('dist/kg/builder.js (personKey)', join(r, 'dist', 'kg', 'builder.js'));
    change('dist/kg/sources/kgqa.js', join(r, 'dist', 'kg', 'sources', 'kgqa.js'));
    change('dist/cli/commands/kg.js', join(r, 'dist', 'cli', 'commands', 'kg.js'));
    change('a KG source file', join(data, 'kg', 'openkg-douban-movie', 'Movie.csv'));
    change('the douban csv', join(data, 'kg', 'douban-movies-2065', 'douban_all_movies.csv'));
    // without the sources: an error naming them
    rmSync(join(data, 'kg', 'douban-kgqa-small'), { recursive: true });
    assert.throws(fp, /the KG sources are missing \(.*douban-kgqa-small\)/u);
    // without dist/: an error saying to build
    rmSync(join(r, 'dist'), { recursive: true });
    assert.throws(() => mergedKgFingerprint({ root: r, data: fixtureData(join(dir, 'again')) }), /dist\/[\w/-]+\.js is missing: run npm run build first$/u);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ensureMergedKg builds once per fingerprint, reuses the snapshot, and rebuilds when a source changes', { skip: SKIP }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-merged-cache-'));
  try {
    const data = fixtureData(dir);
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const lines: string[] = [];
    const ensure = () => ensureMergedKg({ root, data, tmp, log: (s: string) => lines.push(s), stdio: 'ignore' });
    const a = ensure();
    assert.equal(a.built, true);
    assert.equal(a.path, mergedKgPath({ root, data, tmp }));
    assert.match(lines[0], /^building the merged KG .*filmkw-merged-[0-9a-f]{16}\.fkg/u);
    const kgA = await loadKg({ kg: a.path });
    assert.ok(kgA.toData().entities.some((e) => e.kind === 'Movie' && e.id.startsWith('movie/douban/')), 'the fixture films');
    assert.ok(kgA.toData().entities.some((e) => e.id === 'movie/name/长津湖'), 'the demo KG');

    const old = new Date(Date.now() - 30 * 24 * 3600 * 1000);
    utimesSync(a.path, old, old);
    const b = ensure();
    assert.deepEqual(b, { path: a.path, built: false });
    assert.equal(lines.length, 1, 'no second build');
    assert.ok(statSync(a.path).mtimeMs > old.getTime(), 'a used snapshot is marked as used (not pruned)');

    // a changed source: another snapshot, built; the old one is left for whoever still uses it
    appendFileSync(join(data, 'kg', 'openkg-douban-movie', 'Movie.csv'), '\n');
    const c = ensure();
    assert.equal(c.built, true);
    assert.notEqual(c.path, a.path);
    assert.ok(existsSync(a.path) && existsSync(c.path));
    assert.deepEqual(readdirSync(tmp).sort(), [a.path, c.path].map((p) => p.slice(tmp.length + 1)).sort(), 'no partial file left');

    // a failing import (a source file that is a directory): an error with the import's exit code, no new
    // snapshot and no partial file
    const movie = join(data, 'kg', 'openkg-douban-movie', 'Movie.csv');
    rmSync(movie);
    mkdirSync(movie);
    assert.throws(ensure, (e: Error & { exitCode?: number }) => {
      assert.match(e.message, /building the merged KG failed \(kg import exit [1-9]\d*\)$/u);
      assert.ok(e.exitCode !== undefined && e.exitCode > 0);
      return true;
    });
    assert.equal(readdirSync(tmp).length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('pruneStaleMergedKgs removes only snapshots unused for STALE_DAYS; a used snapshot is kept fresh', { skip: SKIP }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'filmkw-merged-prune-'));
  try {
    const day = 24 * 3600 * 1000;
    const now = Date.UTC(2026, 10, 28);
    const at = (name: string, daysAgo: number) => {
      writeFileSync(join(tmp, name), 'x');
      const t = new Date(now - daysAgo * day);
      utimesSync(join(tmp, name), t, t);
    };
    at('filmkw-merged-0123456789abcdef.fkg', STALE_DAYS + 1);
    at('filmkw-merged-fedcba9876543210.fkg', STALE_DAYS - 1);
    at('filmkw-merged.fkg', 30); // a user's own snapshot (README name): not ours to remove
    at('filmkw-merged-0123456789abcdef.123.part.fkg', 30); // not a snapshot name
    assert.deepEqual(pruneStaleMergedKgs(tmp, now), ['filmkw-merged-0123456789abcdef.fkg']);
    assert.deepEqual(readdirSync(tmp).sort(), ['filmkw-merged-0123456789abcdef.123.part.fkg', 'filmkw-merged-fedcba9876543210.fkg', 'filmkw-merged.fkg']);
    assert.deepEqual(pruneStaleMergedKgs(tmp, now), [], 'idempotent');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
