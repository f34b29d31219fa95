import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinStopwords, filmStopwordsPath, loadStopwords } from '../../src/pipeline/stopwords.js';
import { FilmkwError } from '../../src/errors.js';

test('nodejieba list is read from node_modules: punctuation, function words, English', () => {
  const w = builtinStopwords('nodejieba');
  assert.ok(w.length > 1400, `size ${w.length}`);
  for (const x of ['的', '了', '我们', '因为', '。', '，', 'the', '#', '若果']) assert.ok(w.includes(x), x);
  assert.ok(!w.includes(''), 'blank lines dropped');
});

test('film list: guideline film vocabulary and light verbs, no comments, no duplicates', () => {
  const w = builtinStopwords('film');
  for (const x of ['电影', '影片', '觉得', '片子', '导演', '故事', '剧情', '镜头', '观众', '演员', '角色', '主角', '画面', '情节', '结局']) {
    assert.ok(w.includes(x), x);
  }
  assert.ok(!w.some((x) => x.startsWith('#')));
  assert.equal(new Set(w).size, w.length);
  // Topic words that must stay candidates.
  for (const x of ['唢呐', '传承', '战争', '爱情', '梦想', '音乐', '影评']) assert.ok(!w.includes(x), x);
});

test('film list never removes a gold keyword of the dev set', { skip: !existsSync(new URL('../../../shared/data/annotated/film-dev.jsonl', import.meta.url)) && 'needs ../shared/data/annotated/film-dev.jsonl' }, () => {
  const gold = new Set(
    readFileSync(new URL('../../../shared/data/annotated/film-dev.jsonl', import.meta.url), 'utf8')
      .split('\n')
      .filter(Boolean)
      .flatMap((l) => (JSON.parse(l) as { tag: string[] }).tag),
  );
  assert.deepEqual(builtinStopwords('film').filter((w) => gold.has(w)), []);
});

test('loadStopwords: default = both lists, read-only; lists, files and words selectable', () => {
  const all = loadStopwords();
  assert.notEqual(loadStopwords(), all, 'read anew on each call (no process-wide memo)');
  assert.deepEqual(loadStopwords(), all);
  assert.ok(all.has('的') && all.has('电影'));
  assert.throws(() => (all as Set<string>).add('x'), TypeError);
  assert.throws(() => (all as Set<string>).delete('的'), TypeError);
  const nj = loadStopwords({ lists: ['nodejieba'] });
  assert.ok(nj.has('的') && !nj.has('电影'));
  const film = loadStopwords({ lists: ['film'] });
  assert.ok(!film.has('的') && film.has('电影'));
  assert.equal(loadStopwords({ lists: [] }).size, 0);
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-sw-'));
  const f = join(dir, 'mine.txt');
  writeFileSync(f, '\uFEFF# mine\n 唢呐 \r\n\n');
  const mine = loadStopwords({ lists: [], files: [f], words: ['传承', ' '] });
  assert.deepEqual([...mine].sort(), ['传承', '唢呐']);
});

test('loadStopwords: unknown list is USAGE, missing file is INPUT naming the path', () => {
  assert.throws(() => loadStopwords({ lists: ['hit' as never] }), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && /nodejieba, film/u.test(e.message));
  const missing = join(tmpdir(), 'no-such-stopwords-filmkw.txt');
  assert.throws(() => loadStopwords({ files: [missing] }), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && e.message.includes(missing));
  assert.ok(existsSync(filmStopwordsPath()));
});
