import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FilmkwError } from '../../src/errors.js';
import { readFileSync } from 'node:fs';
import { nodejiebaDefaultFiles } from '../../src/lexicon/base.js';
import { LAZY_IDF_LOOKUPS, indexIdf, lazyIdfTable, loadBundledIdf, parseIdf, scanIdf } from '../../src/pipeline/idf.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { toyKg } from '../fixtures/pipeline/mini-kg.js';

test('parseIdf: word idf lines, unknown words get the mean, bad lines name file:line', () => {
  const t = parseIdf('电影 2.0\n\n唢呐\t10\n传承 6\n', 'toy.idf');
  assert.equal(t.size, 3);
  assert.equal(t.unknown, 6);
  assert.deepEqual([t.weight('电影'), t.weight('唢呐'), t.weight('百鸟朝凤')], [2, 10, 6]);
  assert.equal(t.source, 'toy.idf');
  assert.throws(() => parseIdf('电影 2\n唢呐 x\n', 'toy.idf'), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /toy\.idf:2/.test(e.message));
  assert.throws(() => parseIdf('\n', 'empty.idf'), /empty\.idf: no entries/);
});

test("nodejieba's idf.utf8 is read from the installed package: generic words weigh less than rare ones", () => {
  const t = loadBundledIdf();
  assert.ok(t.size > 100_000, `${t.size}`);
  assert.ok(t.weight('电影') < t.weight('唢呐'));
  assert.ok(t.unknown > t.weight('电影'));
  assert.equal(loadBundledIdf(), t, 'loaded once');
});

test('prior.idf multiply: scores are the graph scores × idf, re-ranked', () => {
  const text = '吴京主演的长津湖讲述了战争故事，这部电影的战争场面很震撼，电影的配乐也很出色。';
  const plain = createExtractor({ preset: 'textrank+w+g+r', kg: toyKg() }).extract(text, { topK: 50 });
  const idf = createExtractor({ preset: 'textrank+w+g+r', overrides: { 'prior.idf': 'multiply' }, kg: toyKg() }).extract(text, { topK: 50 });
  const table = loadBundledIdf();
  const want = plain.map((k) => ({ word: k.word, score: k.score * table.weight(k.word) })).sort((a, b) => b.score - a.score);
  assert.deepEqual(idf.map((k) => k.word), want.map((k) => k.word));
  idf.forEach((k, i) => assert.ok(Math.abs(k.score - want[i].score) < 1e-9));
  assert.notDeepEqual(idf.map((k) => k.word), plain.map((k) => k.word), 'the prior changes this ranking');
});

test('explain gives the rank score and the IDF factor behind each word score (score = rank × idf with prior.idf multiply)', () => {
  const text = '吴京主演的长津湖讲述了战争故事，这部电影的战争场面很震撼，电影的配乐也很出色。';
  const table = loadBundledIdf();
  const withIdf = createExtractor({ preset: 'textrank+w+g+r', overrides: { 'prior.idf': 'multiply' }, kg: toyKg() }).extract(text, { topK: 10, explain: true });
  assert.ok(withIdf.length >= 5);
  for (const k of withIdf) {
    assert.equal(k.explain!.idf, table.weight(k.word), k.word);
    assert.ok(Math.abs(k.explain!.rank! * k.explain!.idf! - k.score) < 1e-9, `${k.word}: ${k.explain!.rank} × ${k.explain!.idf} vs ${k.score}`);
  }
  const plain = createExtractor({ preset: 'textrank+w+g+r', kg: toyKg() }).extract(text, { topK: 10, explain: true });
  for (const k of plain) {
    assert.equal(k.explain!.idf, undefined, 'no prior, no factor');
    assert.equal(k.explain!.rank, k.score, k.word);
  }
});

test('scanIdf finds what parseIdf parses: line starts, substrings, tabs, CRLF, leading spaces, the last duplicate', () => {
  const content = '\ufeff电影 2.0\r\n  唢呐\t10\n大电影 7\n影 3\n传承 6\n电影院 4\n传承 8\n\u3000朝 5\n2011 9\n11 7.5\nab11 2\n百鸟朝凤 12';
  const full = parseIdf(content, 'toy.idf');
  const bytes = Buffer.from(content, 'utf8');
  for (const w of ['电影', '唢呐', '大电影', '影', '传承', '电影院', '百鸟朝凤', '朝凤', '朝', '电', '院', '不在', '', '电影 2.0', '\ud800', '12', '11', '2011', '0', '1', 'ab', '5']) {
    assert.equal(scanIdf(bytes, w) ?? full.unknown, full.weight(w), JSON.stringify(w));
  }
  assert.equal(scanIdf(bytes, '传承'), 8, 'the last line of a repeated word, as parseIdf');
  assert.equal(scanIdf(bytes, '朝凤'), undefined, 'inside a word is not a match');
  assert.equal(scanIdf(bytes, '朝'), 5, 'a line led by an ideographic space, trimmed as parseIdf trims it');
  assert.equal(scanIdf(bytes, '电影'), 2, 'the first line, after a byte-order mark');
});

test('lazyIdfTable: scans for the first LAZY_IDF_LOOKUPS words, then parses once; same weights and mean either way', () => {
  const lines = Array.from({ length: 300 }, (_, i) => `词${i} ${(i % 17) + 0.5}`);
  const content = lines.join('\n');
  const full = parseIdf(content, 'many.idf');
  let means = 0;
  const lazy = lazyIdfTable(Buffer.from(content, 'utf8'), 'many.idf', () => {
    means++;
    return full.unknown;
  });
  const words = [...Array.from({ length: 300 }, (_, i) => `词${i}`), '没有', '词', '词3000'];
  for (const w of words) assert.equal(lazy.weight(w), full.weight(w), w);
  for (const w of words) assert.equal(lazy.weight(w), full.weight(w), `${w} again`);
  assert.equal(lazy.unknown, full.unknown);
  assert.equal(lazy.size, full.size);
  assert.ok(means <= 1, 'the mean is asked for at most once');
  assert.ok(LAZY_IDF_LOOKUPS < words.length, 'the table was parsed on the way');
});

test('indexIdf: the same weights, size and mean as parseIdf on nodejieba\'s idf.utf8 and on plain toy tables', () => {
  const bytes = readFileSync(nodejiebaDefaultFiles().idfDict);
  const text = bytes.toString('utf8');
  const parsed = parseIdf(text, 'idf.utf8');
  const indexed = indexIdf(bytes, 'idf.utf8');
  assert.ok(indexed, 'nodejieba\'s table is in plain form');
  assert.equal(indexed.size, parsed.size);
  assert.equal(indexed.unknown, parsed.unknown);
  const words = text.split('\n').map((l) => l.split(' ')[0]).filter((w) => w !== '');
  assert.ok(words.length > 250_000);
  for (const w of words) if (indexed.weight(w) !== parsed.weight(w)) assert.fail(`weight of ${w}: ${indexed.weight(w)} vs ${parsed.weight(w)}`);
  for (const w of ['不在表里的词', '电影院线', 'x', '', '\ud800', '长'.repeat(200)]) assert.equal(indexed.weight(w), parsed.weight(w), JSON.stringify(w));

  const toy = '\ufeff电影 2\n\n传承 6\n唢呐 10\n传承 8\n百鸟朝凤 1.5e1\n\ufffd 3\n';
  const t = indexIdf(Buffer.from(toy), 'toy')!;
  const p = parseIdf(toy, 'toy');
  assert.deepEqual([t.size, t.unknown], [p.size, p.unknown], 'the mean counts each word once, at its first line');
  for (const w of ['电影', '传承', '唢呐', '百鸟朝凤', '\ufffd', '\ud800', '影', '']) assert.equal(t.weight(w), p.weight(w), JSON.stringify(w));
  assert.equal(t.weight('传承'), 8, 'the last line wins');
});

test('indexIdf: tables not in plain form are left to parseIdf (null)', () => {
  const bad = [
    '电影 2\r\n唢呐 10\n', // CR
    '电影\t2\n', // tab
    '  电影 2\n', // leading space
    '电影 2 \n', // trailing space
    '电\u3000影 2\n', // ideographic space inside the word
    '电影 0x1F\n', // a number Number() reads, but not plain
    '电影 abc\n', // not a number
    '电影\n', // no value
    '\n\n', // no entry
  ];
  for (const text of bad) assert.equal(indexIdf(Buffer.from(text), 'bad'), null, JSON.stringify(text));
  assert.equal(indexIdf(Buffer.from([0xe7, 0x94, 0x20, 0x31, 0x0a]), 'bad'), null, 'invalid UTF-8');
  // the lazy table falls back to the parser and keeps its exact results
  const lazy = lazyIdfTable(Buffer.from('电影\t2\n唢呐 10\n'), 'tab', () => 6);
  for (let i = 0; i < LAZY_IDF_LOOKUPS + 1; i++) lazy.weight(`词${i}`);
  assert.equal(lazy.weight('电影'), 2);
  assert.equal(lazy.size, 2);
});
