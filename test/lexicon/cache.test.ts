import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheDirFromEnv, cachedStrings, diskCacheFromEnv, DiskCache, CACHE_FORMAT, KEEP_PER_KIND } from '../../src/lexicon/cache.js';
import { loadKg } from '../../src/kg/load.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { exportUserDict } from '../../src/lexicon/dict.js';
import { resolveOptions } from '../../src/pipeline/options.js';
import { DEFAULT_BACKEND } from '../../src/lexicon/base.js';
import { prepareUserDict, preparedFromStrings } from '../../src/lexicon/user-dict.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'filmkw-dict-cache-test-'));
}

test('DiskCache: computed on a miss, read from disk after, memo in process; equal values', () => {
  const dir = tempDir();
  try {
    let cache = new DiskCache(dir);
    let calls = 0;
    const compute = () => (calls++, ['b 3 nz', 'a 1 nr', '含 空格 的']);
    cache = new DiskCache(dir);
    const a = cache.strings('test-entry', 'hash1', { x: 1, y: [2] }, compute);
    assert.equal(a.source, 'computed');
    assert.equal(calls, 1);
    const b = cache.strings('test-entry', 'hash1', { y: [2], x: 1 }, compute);
    assert.equal(b.source, 'memory', 'option key order does not matter');
    cache = new DiskCache(dir);
    const c = cache.strings('test-entry', 'hash1', { x: 1, y: [2] }, compute);
    assert.equal(c.source, 'disk');
    assert.equal(calls, 1);
    assert.deepEqual(c.values, a.values);
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.match(files[0], /^test-entry-[0-9a-f]{32}\.json$/u);
    assert.ok(readFileSync(join(dir, files[0]), 'utf8').startsWith(`{"format":"${CACHE_FORMAT}"`));
    // another KG hash or other options: another entry
    cache = new DiskCache(dir);
    assert.equal(cache.strings('test-entry', 'hash2', { x: 1, y: [2] }, compute).source, 'computed');
    assert.equal(cache.strings('test-entry', 'hash1', { x: 2, y: [2] }, compute).source, 'computed');
    assert.equal(readdirSync(dir).length, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('DiskCache: a corrupt, truncated or foreign entry is recomputed and rewritten', () => {
  const dir = tempDir();
  try {
    let cache = new DiskCache(dir);
    const compute = () => ['x 1 n', 'y 2 n'];
    cache = new DiskCache(dir);
    cache.strings('test-entry', 'h', {}, compute);
    const file = join(dir, readdirSync(dir)[0]);
    const good = readFileSync(file, 'utf8');
    for (const bad of [good.replace('x 1 n', 'x 9 n'), good.slice(0, good.length - 3), good.replace(CACHE_FORMAT, 'other 0'), '', 'no newline']) {
      writeFileSync(file, bad);
      cache = new DiskCache(dir);
      const r = cache.strings('test-entry', 'h', {}, compute);
      assert.equal(r.source, 'computed', JSON.stringify(bad.slice(0, 40)));
      assert.deepEqual(r.values, ['x 1 n', 'y 2 n']);
      assert.equal(readFileSync(file, 'utf8'), good, 'rewritten');
    }
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [],
      'no temporary files left',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no cache (FILMKW_CACHE=off for the CLI) computes every time and writes nothing; an unusable directory is not an error', () => {
  const dir = tempDir();
  try {
    let calls = 0;
    const compute = () => (calls++, ['a']);
    assert.equal(cacheDirFromEnv({ FILMKW_CACHE: 'off', FILMKW_CACHE_DIR: dir }), null);
    assert.equal(diskCacheFromEnv({ FILMKW_CACHE: 'off', FILMKW_CACHE_DIR: dir }), null);
    assert.equal(diskCacheFromEnv({ FILMKW_CACHE_DIR: dir })!.dir, dir);
    assert.deepEqual(cachedStrings(null, 'test-entry', 'h', {}, compute), ['a']);
    assert.deepEqual(cachedStrings(null, 'test-entry', 'h', {}, compute), ['a']);
    assert.equal(calls, 2, 'no cache: computed every time');
    assert.equal(readdirSync(dir).length, 0);
    // a file where the directory should be
    const notDir = join(dir, 'file');
    writeFileSync(notDir, 'x');
    const r = new DiskCache(notDir).strings('test-entry', 'h', {}, compute);
    assert.equal(r.source, 'computed');
    assert.deepEqual(r.values, ['a']);
    assert.throws(() => new DiskCache(dir).strings('Bad/Kind', 'h', {}, compute), /bad entry kind/u);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('createExtractor: keywords identical without a cache, with it filled and read from disk (demo KG, lexicon + title policy + IDF)', async () => {
  const dir = tempDir();
  const saved = { dir: process.env.FILMKW_CACHE_DIR, flag: process.env.FILMKW_CACHE };
  try {
    const kg = await loadKg({});
    const texts = ['以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。', '吴京和易烊千玺在长津湖里的表演都很好，英雄的故事让人感动。'];
    const run = (cache: DiskCache | null) => {
      const ex = createExtractor({ preset: 'filmkw', kg, cache });
      return texts.map((t) => ex.extract(t, { explain: true }));
    };
    // a library caller without a cache: nothing written, even with the CLI's variable set
    process.env.FILMKW_CACHE_DIR = dir;
    delete process.env.FILMKW_CACHE;
    const off = run(null);
    assert.deepEqual(readdirSync(dir), [], 'no cache unless asked');
    const filled = run(new DiskCache(dir));
    for (const kind of ['segmenter-lexicon-', 'common-names-', 'idf-table-']) assert.equal(readdirSync(dir).filter((f) => f.startsWith(kind)).length, 1, kind);
    const fromDisk = run(new DiskCache(dir));
    assert.deepEqual(filled, off);
    assert.deepEqual(fromDisk, off);
    // the cached lexicon is the export itself, made ready for the segmenter
    const entry = readdirSync(dir).find((f) => f.startsWith('segmenter-lexicon-'))!;
    const text = readFileSync(join(dir, entry), 'utf8');
    const stored = preparedFromStrings(JSON.parse(text.slice(text.indexOf('\n') + 1)) as string[]);
    const t = resolveOptions('filmkw').titles;
    const lines = exportUserDict(kg, { backend: DEFAULT_BACKEND, commonMinFreq: t.commonMinFreq, commonMaxLength: t.commonMaxLength, commonWordKinds: t.titleKinds }).lines;
    assert.ok(lines.length > 100);
    assert.deepEqual(stored, prepareUserDict({ userDictLines: lines }));
  } finally {
    if (saved.dir === undefined) delete process.env.FILMKW_CACHE_DIR;
    else process.env.FILMKW_CACHE_DIR = saved.dir;
    if (saved.flag === undefined) delete process.env.FILMKW_CACHE;
    else process.env.FILMKW_CACHE = saved.flag;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('DiskCache: a write keeps the newest entries of its kind and removes older ones; other kinds untouched', () => {
  const dir = tempDir();
  try {
    const hex = (i: number) => i.toString(16).padStart(32, '0');
    const old: string[] = [];
    for (let i = 0; i < KEEP_PER_KIND + 3; i++) {
      const name = `prune-test-${hex(i)}.json`;
      writeFileSync(join(dir, name), 'old entry');
      utimesSync(join(dir, name), 1_000 + i, 1_000 + i); // i = 0 is the oldest
      old.push(name);
    }
    const others = [`prune-test-x-${hex(1)}.json`, `other-${hex(2)}.json`, 'notes.txt', `other-${hex(3)}.json.123.abc.tmp`];
    for (const n of others) {
      writeFileSync(join(dir, n), 'keep');
      utimesSync(join(dir, n), Date.now() / 1000, Date.now() / 1000);
    }
    // an entry kind no version reads any more, and a temporary file a killed writer left long ago
    const gone = [`userdict-${hex(4)}.json`, `other-${hex(5)}.json.4242.zz9.tmp`];
    for (const n of gone) {
      writeFileSync(join(dir, n), 'stale');
      utimesSync(join(dir, n), 1, 1);
    }
    let cache = new DiskCache(dir);
    const r = cache.strings('prune-test', 'h', {}, () => ['v']);
    assert.equal(r.source, 'computed');
    const left = readdirSync(dir);
    const kept = left.filter((n) => /^prune-test-[0-9a-f]{32}\.json$/u.test(n));
    assert.equal(kept.length, KEEP_PER_KIND);
    assert.ok(!kept.some((n) => old.includes(n) && old.indexOf(n) < old.length - (KEEP_PER_KIND - 1)), `the oldest removed: ${kept.join(' ')}`);
    for (const n of old.slice(-(KEEP_PER_KIND - 1))) assert.ok(left.includes(n), `${n} kept`);
    for (const n of others) assert.ok(left.includes(n), `${n} untouched`);
    for (const n of gone) assert.ok(!left.includes(n), `${n} removed`);
    cache = new DiskCache(dir);
    assert.equal(cache.strings('prune-test', 'h', {}, () => ['v']).source, 'disk', 'the new entry is kept');
    // a hit refreshes the entry: made the oldest, then read, it outlives the others at the next write
    const fresh = kept.find((n) => !old.includes(n))!;
    utimesSync(join(dir, fresh), 1, 1);
    cache = new DiskCache(dir);
    assert.equal(cache.strings('prune-test', 'h', {}, () => ['v']).source, 'disk');
    cache = new DiskCache(dir);
    cache.strings('prune-test', 'h2', {}, () => ['w']);
    const after = readdirSync(dir).filter((n) => /^prune-test-[0-9a-f]{32}\.json$/u.test(n));
    assert.equal(after.length, KEEP_PER_KIND);
    assert.ok(after.includes(fresh), 'the entry just read is kept');
    assert.ok(!after.includes(old[old.length - (KEEP_PER_KIND - 1)]), 'the least recently used one is removed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
