import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FilmkwError } from '../../src/errors.js';
import { readFileSync } from 'node:fs';
import { nodejiebaDefaultFiles } from '../../src/lexicon/base.js';
import { idfTableFromPacked, loadBundledIdf, packIdf, parseIdf, parseIdfEntries, SlotRecords } from '../../src/pipeline/idf.js';
import { StringTable } from '../../src/kg/packed.js';
import { hashName, SlotTags } from '../../src/util/hash.js';
import { DiskCache } from '../../src/lexicon/cache.js';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

test('IdfTable.weights: the chosen words, looked up together, weigh what weight() says (unknown words the mean); others untouched', () => {
  const t = parseIdf('电影 2.0\n唢呐\t10\n传承 6\n', 'toy.idf');
  const words = ['唢呐', '百鸟朝凤', '电影', '传承', 'x'];
  const out = new Float64Array(words.length).fill(-1);
  t.weights!(words, [0, 1, 2, 3], out);
  assert.deepEqual(Array.from(out), [10, 6, 2, 6, -1]);
  // more words than the table's first scratch holds
  const many = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? '唢呐' : `词${i}`));
  const all = new Float64Array(many.length);
  t.weights!(many, many.map((_, i) => i), all);
  assert.deepEqual(Array.from(all), many.map((w) => t.weight(w)));
});

test('prior.idf multiply: a table of its own without weights() (looked up word by word) gives the same keywords', () => {
  const text = '吴京主演的长津湖讲述了战争故事，这部电影的战争场面很震撼，电影的配乐也很出色。';
  const table = loadBundledIdf();
  const own = { source: table.source, size: table.size, unknown: table.unknown, weight: (w: string) => table.weight(w) };
  const run = (idf: typeof own) => createExtractor({ preset: 'filmkw-rerank', kg: toyKg(), idf }).extract(text, { topK: 10, explain: true });
  assert.deepEqual(run(own), run(table));
});

test("nodejieba's idf.utf8 is read from the installed package: generic words weigh less than rare ones", () => {
  const t = loadBundledIdf();
  assert.ok(t.size > 100_000, `${t.size}`);
  assert.ok(t.weight('电影') < t.weight('唢呐'));
  assert.ok(t.unknown > t.weight('电影'));
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

test("the packed table answers as a plain map of nodejieba's idf.utf8: every word, unknown words, the mean", () => {
  const text = readFileSync(nodejiebaDefaultFiles().idfDict, 'utf8');
  const ref = new Map<string, number>();
  let sum = 0;
  for (const line of text.split('\n')) {
    const [w, v] = line.trim().split(/\s+/u);
    if (!w) continue;
    if (!ref.has(w)) sum += Number(v);
    ref.set(w, Number(v));
  }
  const t = parseIdf(text, 'idf.utf8');
  assert.ok(ref.size > 250_000);
  assert.equal(t.size, ref.size);
  assert.equal(t.unknown, sum / ref.size);
  for (const [w, v] of ref) if (t.weight(w) !== v) assert.fail(`weight of ${w}: ${t.weight(w)} vs ${v}`);
  for (const w of ['不在表里的词', '电影院线', 'x', '', '\ud800', '长'.repeat(200)]) assert.equal(t.weight(w), ref.get(w) ?? t.unknown, JSON.stringify(w));
});

test("weight() and weights() over the words' records agree with a plain map: 1-unit, past the three inline units, non-BMP, equal hashes, absent look-alikes", () => {
  // two pairs of words with equal FNV-1a hashes (so equal tags and the same first slot: told apart by their records)
  const same = [['词45zx片', '词fpcd片'], ['词45zy片', '词fpce片']];
  for (const [a, b] of same) assert.equal(hashName(a), hashName(b), `${a} ${b}`);
  const present = ['好', '𠀀', '好的', '好的人', '好的人们', '好的人们来了吗', '𠀀字', '字𠀀', 'ab\u0000', 'ab', '\u0000', '长'.repeat(70_000), ...same[0], same[1][0]];
  const ref = new Map(present.map((w, i) => [w, 0.5 + i]));
  const t = parseIdf(present.map((w) => `${w} ${ref.get(w)}`).join('\n'), 'records');
  // each absent word differs from a present one in its length, in one of the first three units, or past them
  const absent = ['', '坏', '好地', '好的们', '好的人他', '好地人们', '好的人们去', '好的人们来了么', '好的人们来了吗？', 'a', 'ab\u0001', '𠀁字', '\ud840', '\u0001', '长'.repeat(69_999), '长'.repeat(70_001), `${'长'.repeat(69_999)}短`, same[1][1], '词45zx', '词fpcd片片'];
  const words = [...present, ...absent];
  const want = words.map((w) => ref.get(w) ?? t.unknown);
  assert.deepEqual(words.map((w) => t.weight(w)), want);
  const out = new Float64Array(words.length);
  t.weights!(words, words.map((_, i) => i), out);
  assert.deepEqual(Array.from(out), want);
  assert.equal(t.unknown, [...ref.values()].reduce((x, y) => x + y, 0) / ref.size);
});

test("SlotRecords.find: a slot's record (length, three inline units, the rest in the string table) matches exactly its own word", () => {
  const words = ['好', '好的', '好的人', '好的人们', '好的人们来了吗', '𠀀', '𠀀字', 'ab\u0000', 'ab', '\u0000', '', '长'.repeat(0xffff), '长'.repeat(70_000), '\u0000'.repeat(70_000)];
  const entries = { words, values: Float64Array.from(words, (_, i) => 1 + i / 3), unknown: 0.25 };
  const packed = packIdf(entries);
  const dv = new DataView(packed.buffer);
  const cap = dv.getInt32(8, true);
  const slots = new Int32Array(packed.buffer, 24 + 8 * words.length + 4 * (words.length + 1) + (words.length % 2 === 0 ? 4 : 0), cap);
  const table = StringTable.from(words);
  const probes = [...words, '坏', '好地', '好的们', '好的人他', '好地人们', '好的人们来了么', '好的人们来了吗？', 'a', 'ab\u0001', '𠀁字', '\u0001', '长'.repeat(0xfffe), '长'.repeat(70_001), `${'长'.repeat(69_999)}短`];
  for (let k = 0; k < words.length; k++) {
    // a probe from word k's slot meets word k before any empty slot: it answers word k's value exactly for word k, never another word's value
    const records = new SlotRecords(table, entries.values, slots, new SlotTags(words.length).keyMask, entries.unknown);
    for (const s of probes) {
      const got = records.find(s, hashName(words[k]));
      const i = words.indexOf(s);
      if (s === words[k]) assert.equal(got, entries.values[k], JSON.stringify(s.slice(0, 9)));
      else assert.ok(got === entries.unknown || got === entries.values[i], `${JSON.stringify(words[k].slice(0, 9))} (${words[k].length}) vs ${JSON.stringify(s.slice(0, 9))} (${s.length}): ${got}`);
    }
  }
  // the layout read above is the packed one
  assert.equal(idfTableFromPacked(packed, 't').weight('好的人们来了吗'), entries.values[4]);
});

test('packIdf / idfTableFromPacked: the last line of a word wins, the mean counts its first; any alignment; damaged bytes are INPUT errors', () => {
  const entries = parseIdfEntries('\ufeff电影 2\n\n传承 6\n唢呐 10\n传承 8\n百鸟朝凤 1.5e1\n', 'toy');
  assert.deepEqual(entries.words, ['电影', '传承', '唢呐', '百鸟朝凤'], 'a byte-order mark is trimmed with the line');
  const packed = packIdf(entries);
  const shifted = new Uint8Array(packed.length + 3).subarray(3);
  shifted.set(packed);
  for (const bytes of [packed, shifted]) {
    const t = idfTableFromPacked(bytes, 'toy');
    assert.equal(t.size, 4);
    assert.equal(t.unknown, (2 + 6 + 10 + 15) / 4);
    assert.deepEqual(['传承', '唢呐', '百鸟朝凤', '电影', '影'].map((w) => t.weight(w)), [8, 10, 15, 2, t.unknown]);
  }
  const bad = (b: Uint8Array, re: RegExp) => assert.throws(() => idfTableFromPacked(b, 'toy'), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && re.test(e.message));
  bad(packed.subarray(0, 10), /too short/u);
  bad(packed.subarray(0, packed.length - 2), /bytes, the header says/u);
  const header = packed.slice();
  new DataView(header.buffer).setInt32(8, 3, true); // slot count not a power of two
  bad(header, /bad header/u);
  const untagged = packed.slice();
  new DataView(untagged.buffer).setInt32(12, 0, true); // the layout before the slots were tagged
  bad(untagged, /bad header/u);
});

test('loadBundledIdf: one path with or without a cache; the cache keeps the packed table and gives the same weights', () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-idf-cache-'));
  try {
    const plain = loadBundledIdf();
    assert.deepEqual(readdirSync(dir), []);
    const filled = loadBundledIdf({ cache: new DiskCache(dir) });
    const entries = readdirSync(dir);
    assert.equal(entries.length, 1);
    assert.match(entries[0], /^idf-table-[0-9a-f]{32}\.bin$/u);
    const fromDisk = loadBundledIdf({ cache: new DiskCache(dir) });
    for (const t of [filled, fromDisk]) {
      assert.equal(t.size, plain.size);
      assert.equal(t.unknown, plain.unknown);
      for (const w of ['电影', '唢呐', '传统文化', '百鸟朝凤', '的']) assert.equal(t.weight(w), plain.weight(w), w);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('createExtractor takes the IDF table it is given (a resource, not a global)', () => {
  const text = '吴京主演的长津湖讲述了战争故事，这部电影的战争场面很震撼，电影的配乐也很出色。';
  const flat = parseIdf('占位 1\n', 'flat');
  const ex = createExtractor({ preset: 'textrank+w+g+r', overrides: { 'prior.idf': 'multiply' }, kg: toyKg(), idf: flat });
  const plain = createExtractor({ preset: 'textrank+w+g+r', kg: toyKg() }).extract(text, { topK: 10 });
  // every word weighs 1 in this table: the ranking is the plain one
  assert.deepEqual(ex.extract(text, { topK: 10 }), plain);
});
