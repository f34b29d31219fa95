/**
 * Corpus statistics (issue 24 item 2): the table (src/pipeline/corpus-stats.ts: counting, text format,
 * parsing with errors naming file and line) and the re-ranker's corpus features (rerank-context.ts:
 * document frequency, film spread, keyness, leave one out, the gate).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { FilmkwError } from '../../src/errors.js';
import { loadKg } from '../../src/kg/load.js';
import { CorpusCounter, corpusStatsText, packCorpusStats, parseCorpusStats, textHash } from '../../src/pipeline/corpus-stats.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { zeroRerankModel } from '../../src/pipeline/rerank-model.js';
import { filmSlot, sameSurface, surfaceRecords, unpackCorpusTable } from '../../src/pipeline/corpus-pack.js';
import { hashName } from '../../src/util/hash.js';

test('CorpusCounter: distinct surfaces per text, identical texts once, films with ≥ 2 texts get per-film counts, surfaces below minDf left out (golden)', () => {
  const c = new CorpusCounter();
  assert.equal(c.add('a', ['好看', '吴京', '好看'], 'movie/douban/1'), true);
  assert.equal(c.add('b', ['好看', '吴京'], 'movie/douban/1'), true);
  assert.equal(c.add('c', ['好看', '战狼'], 'movie/douban/2'), true);
  assert.equal(c.add('d', ['好看'], null), true);
  assert.equal(c.add('a', ['好看'], 'movie/douban/3'), false, 'the same text again');
  assert.equal(c.duplicates, 1);
  assert.equal(c.documents, 4);
  const lines = c.serialize({ note: 'x' }, 2).trimEnd().split('\n');
  assert.deepEqual(JSON.parse(lines[0]), { format: 'filmkw-corpus-stats', version: 1, docs: 4, films: 2, minDf: 2, note: 'x' });
  assert.deepEqual(lines.slice(1, 3), ['F\tmovie/douban/1\t2', 'F\tmovie/douban/2\t1']);
  const docs = lines.filter((l) => l.startsWith('D\t'));
  assert.deepEqual(docs.map((l) => l.split('\t')[1]), ['a', 'b', 'c', 'd'].map(textHash).sort());
  // 吴京: 2 texts of film 0; 好看: 4 texts, 2 films, per-film count for film 0 only (film 1 has one text); 战狼: df 1, left out
  assert.deepEqual(lines.filter((l) => l.startsWith('W\t')), ['W\t吴京\t2\t1\t0:2', 'W\t好看\t4\t2\t0:2']);
  assert.equal(c.serialize({}, 1).split('\n').filter((l) => l.startsWith('W\t')).length, 3);
  assert.equal(c.serialize().split('\n').filter((l) => l.startsWith('W\t')).length, 1, 'the default minimum df is 3');
  // per-film counts: the first film index, then steps; a count of 1 without ":1"
  const d = new CorpusCounter();
  for (const [t, f] of [['1', 'f0'], ['2', 'f0'], ['3', 'f1'], ['4', 'f1'], ['5', 'f2'], ['6', 'f2'], ['7', 'f2']] as const) d.add(t, t === '3' ? ['别'] : ['词'], f);
  assert.deepEqual(d.serialize({}, 2).split('\n').filter((l) => l.startsWith('W\t')), ['W\t词\t6\t3\t0:2,1,1:3']);
  const back = parseCorpusStats(d.serialize({}, 2), 'd');
  const k = back.word('词');
  assert.deepEqual([0, 1, 2].map((j) => back.filmDf(k, j)), [2, 1, 3]);
});

test('filmDf of a word spread over many films (a search over its increasing film indices): every film, present or not', () => {
  const c = new CorpusCounter();
  const want = new Map<number, number>();
  let t = 0;
  // 60 films of 3 texts each; the word in none, one, two or three texts of a film, by a fixed pattern
  for (let f = 0; f < 60; f++) {
    const n = (f * 7) % 4;
    for (let i = 0; i < 3; i++) c.add(`t${t++}`, i < n ? ['词', '别'] : ['别'], `film${String(f).padStart(2, '0')}`);
    want.set(f, n);
  }
  const s = parseCorpusStats(c.serialize({}, 2), 'many');
  const k = s.word('词');
  const got = [...want.keys()].map((f) => s.filmDf(k, s.filmIndex(`film${String(f).padStart(2, '0')}`)));
  assert.deepEqual(got, [...want.values()]);
  assert.equal(s.filmDf(k, s.films), 0, 'past the last film');
  assert.equal(s.filmDf(s.word('别'), 0), 3);
});

test('parseCorpusStats: the counts back, gzip or plain; a bad table fails naming the file and the line', () => {
  const c = new CorpusCounter();
  c.add('a', ['好看', '吴京'], 'f1');
  c.add('b', ['好看', '吴京'], 'f1');
  c.add('c', ['好看'], null);
  const text = c.serialize({}, 2);
  for (const bytes of [Buffer.from(text), gzipSync(text)]) {
    const s = parseCorpusStats(corpusStatsText(bytes, 't.gz'), 't.gz');
    assert.equal(s.docs, 3);
    assert.equal(s.films, 1);
    const k = s.word('好看');
    assert.deepEqual([s.df(k), s.spread(k), s.filmDf(k, s.filmIndex('f1'))], [3, 1, 2]);
    assert.equal(s.word('没有'), -1);
    assert.equal(s.filmIndex('f2'), -1);
    assert.equal(s.docFilm(textHash('c')), -1);
    assert.equal(s.docFilm(textHash('a')), 0);
    assert.equal(s.docFilm(textHash('zzz')), -2);
    assert.match(s.contentHash, /^[0-9a-f]{64}$/u);
  }
  const bad = (t: string, pattern: RegExp) => assert.throws(() => parseCorpusStats(t, 'x.tsv'), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && pattern.test(e.message));
  bad('not json\n', /^x\.tsv:1: corpus statistics: the first line is not the JSON header/u);
  bad('{"format":"other","version":1}\n', /x\.tsv:1: .*not a filmkw-corpus-stats table of version 1/u);
  const lines = text.trimEnd().split('\n');
  const at = lines.findIndex((l) => l.startsWith('W\t'));
  const broken = [...lines];
  broken[at] = 'W\t好看\tmany\t1';
  bad(broken.join('\n'), new RegExp(`x\\.tsv:${at + 1}: corpus statistics: df: expected an integer ≥ 1, got "many"`, 'u'));
  bad([...lines, 'Q\tnothing'].join('\n'), new RegExp(`x\\.tsv:${lines.length + 1}: .*expected an F, D or W line`, 'u'));
  bad([lines[0].replace('"docs":3', '"docs":5'), ...lines.slice(1)].join('\n'), /the header says 5 documents, the table lists 3/u);
  bad([...lines, 'W\t新\t2\t1\t7:2'].join('\n'), /film index 7 is not one of the 1 films/u);
  bad([...lines, 'W\t新\t2\t1\t0,0'].join('\n'), /film index step: expected an integer ≥ 1, got "0"/u);
  bad([...lines, 'W\t新\t2\t1\t0:1'].join('\n'), /film df: expected an integer ≥ 2, got "1"/u);
  assert.throws(() => corpusStatsText(Buffer.from([0x1f, 0x8b, 1, 2]), 'y.gz'), /y\.gz: corpus statistics: not a readable gzip file/u);
});

const A = '吴京主演的长津湖很好看。长津湖的故事。';
const B = '长津湖里吴京演得好，长津湖真好看。';
const C = '战狼2的吴京，好看。';
const D = '吴京的长津湖，好看的电影。';

test('corpus features: df and film spread over the other texts (leave one out by text hash), keyness with the film known, the gate', async () => {
  const kg = await loadKg({});
  const plain = createExtractor({ preset: 'filmkw-rerank', kg, corpusStats: null });
  const counter = new CorpusCounter();
  counter.add(A, plain.candidateSurfaces(A), 'movie/name/长津湖');
  counter.add(B, plain.candidateSurfaces(B), 'movie/name/长津湖');
  counter.add(C, plain.candidateSurfaces(C), 'movie/name/战狼2');
  const stats = parseCorpusStats(counter.serialize({}, 1), 'mini');
  const extractor = createExtractor({ preset: 'filmkw-rerank', kg, rerankModel: zeroRerankModel(['corpusFilmDocs']), corpusStats: stats });
  const features = (text: string, film?: string) => {
    const out = new Map<string, Map<string, number>>();
    for (const k of extractor.extract(text, { topK: 100, explain: true, film })) out.set(k.word, new Map(k.explain!.rerank!.features.map((x) => [x.feature, x.value])));
    return out;
  };
  const close = (a: number | undefined, b: number, what: string) => assert.ok(a !== undefined && Math.abs(a - b) < 1e-9, `${what}: ${a} ≠ ${b}`);
  // A is in the table: its own counts are left out (2 other texts, 2 films: 长津湖 (B), 战狼2 (C))
  const a = features(A, '长津湖');
  const j = a.get('吴京')!;
  assert.equal(j.get('corpusOn'), 1);
  close(j.get('corpusDf'), Math.log1p(2) / Math.log1p(2), '吴京 df: B and C');
  close(j.get('corpusSpread'), Math.log1p(2) / Math.log1p(2), '吴京 spread: both films');
  close(j.get('corpusFilmDocs'), Math.log1p(1) / 10, 'one other text of 长津湖');
  close(j.get('corpusKeyness'), Math.log(1.5 / 2) - Math.log(2.5 / 3), '吴京 keyness in 长津湖');
  // D is not in the table: every text counts
  const d = features(D, '长津湖').get('吴京')!;
  close(d.get('corpusDf'), Math.log1p(3) / Math.log1p(3), '吴京 df for a new text');
  close(d.get('corpusFilmDocs'), Math.log1p(2) / 10, 'two texts of 长津湖');
  close(d.get('corpusKeyness'), Math.log(2.5 / 3) - Math.log(3.5 / 4), '吴京 keyness, nothing left out');
  // film unknown: no keyness, the gate by KG entities (长津湖, 吴京: 2 < 3) keeps the corpus features off
  const off = features(D).get('吴京')!;
  assert.deepEqual(['corpusOn', 'corpusDf', 'corpusSpread', 'corpusKeyness', 'corpusFilmDocs'].map((f) => off.get(f)), [0, 0, 0, 0, 0]);
  const gateOpen = createExtractor({ preset: 'filmkw-rerank', kg, rerankModel: zeroRerankModel(['corpusFilmDocs']), corpusStats: stats, overrides: { 'rerank.corpusGate': 2 } });
  const open = new Map(gateOpen.extract(D, { topK: 100, explain: true }).find((k) => k.word === '吴京')!.explain!.rerank!.features.map((x) => [x.feature, x.value]));
  assert.equal(open.get('corpusOn'), 1);
  close(open.get('corpusDf'), 1, 'df with the gate open');
  assert.equal(open.get('corpusKeyness'), 0, 'no film, no keyness');
});

test('filmSlot: the place of a film in a word\'s increasing film list, as a scan finds it (uneven, dense, one-film and empty lists)', () => {
  let seed = 7;
  const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const lists: number[][] = [[], [5], [0, 1, 2, 3, 4, 5, 6, 7], [3, 900, 901, 902, 5000]];
  for (let k = 0; k < 300; k++) {
    const len = 1 + rnd(k < 150 ? 40 : 3000);
    const set = new Set<number>();
    // dense (a third of the lists), else skewed towards low film indices
    for (let tries = 0; set.size < len && tries < 20 * len; tries++) set.add(k % 3 === 0 ? rnd(len * 2) : Math.floor(rnd(6000) ** 2 / 6000));
    lists.push([...set].sort((x, y) => x - y));
  }
  for (const list of lists) {
    // the list inside a larger array, as a table's films are
    const films = Int32Array.from([-1, -1, ...list, 9999]);
    const a = 2;
    const b = 2 + list.length;
    const probes = new Set([...list, ...list.map((x) => x + 1), ...list.map((x) => x - 1), -5, 0, 6001, ...Array.from({ length: 20 }, () => rnd(6100))]);
    for (const j of probes) {
      const want = list.indexOf(j);
      assert.equal(filmSlot(films, a, b, j), want < 0 ? -1 : a + want, `film ${j} in [${list.slice(0, 8).join(',')}…] (${list.length})`);
    }
  }
});

test('wordsOf and filmDfs (the lookups of many surfaces together) give what word and filmDf give one at a time: absent surfaces, equal hashes, films of one text', () => {
  // two surfaces with the same FNV-1a hash (so the same first slot): a probe for either passes the other
  const [same1, same2] = ['的事死', '是国自'];
  assert.equal(hashName(same1), hashName(same2));
  let seed = 11;
  const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const vocab = Array.from({ length: 300 }, (_, i) => `词${i}${'甲乙丙'.slice(0, i % 3)}`);
  const table = (withBoth: boolean) => {
    const c = new CorpusCounter();
    for (let t = 0; t < 120; t++) {
      const words = Array.from({ length: 12 }, () => vocab[Math.floor(rnd(vocab.length) ** 2 / vocab.length)]);
      if (t % 2 === 0) words.push(same1);
      if (withBoth && t % 3 === 0) words.push(same2);
      // one code unit; a character outside the BMP (two units); longer than a record's four inline units
      if (t % 4 === 1) words.push('好', '𠀀字', '一二三四五六七八九');
      // films 0..19 with several texts each, 20..39 with one, some texts without a film
      c.add(`text ${t}`, words, t % 7 === 6 ? null : `film${t < 100 ? t % 20 : 20 + (t - 100)}`);
    }
    const text = c.serialize({}, 2);
    return { s: parseCorpusStats(text, 'batch'), lines: text.split('\n').filter((l) => l.startsWith('W\t')).map((l) => l.split('\t')) };
  };
  for (const both of [true, false]) {
    const { s, lines } = table(both);
    // every surface of the table's text found, with its counts
    assert.deepEqual(lines.map((f) => [f[1], s.df(s.word(f[1])), s.spread(s.word(f[1]))]), lines.map((f) => [f[1], Number(f[2]), Number(f[3])]));
    assert.ok(['好', '𠀀字', '一二三四五六七八九'].every((w) => s.word(w) >= 0));
    const surfaces = [same2, same1, ...vocab, '不在表里', '', same2 + '的', same1, vocab[0], '好', '𠀀字', '一二三四五六七八九', '一二三四五六七八十', '一二三四', '好的', '𠀀'];
    const words = new Int32Array(surfaces.length);
    s.wordsOf(surfaces, words);
    assert.deepEqual([...words], surfaces.map((w) => s.word(w)), both ? 'both colliding surfaces in the table' : 'one of them');
    assert.equal(words[0] >= 0, both);
    assert.ok(words[1] >= 0 && words.includes(-1) && words.filter((k) => k >= 0).length > 64, `present and absent surfaces: ${words.filter((k) => k >= 0).length} present`);
    for (let j = 0; j < s.films; j++) {
      const out = new Int32Array(words.length).fill(-7);
      s.filmDfs(words, words.length - 2, j, out);
      assert.deepEqual([...out.subarray(0, words.length - 2)], [...words.subarray(0, words.length - 2)].map((k) => (k < 0 ? 0 : s.filmDf(k, j))), `film ${j}`);
      assert.deepEqual([...out.subarray(words.length - 2)], [-7, -7], 'only the first count rows');
    }
    assert.ok([...Array(s.films).keys()].some((j) => s.filmDf(words[1], j) > 0), 'some per-film counts');
  }
});

test('sameSurface: a surface\'s record (length, four inline units, the rest in the string table) matches exactly its own string', () => {
  const words = ['好', '好的', '好的人', '好的人们', '好的人们来', '好的人们来了吗', '𠀀', '𠀀字', 'ab\u0000', 'ab', '\u0000'];
  const c = new CorpusCounter();
  for (let t = 0; t < 2; t++) c.add(`t${t}`, words, null);
  const table = unpackCorpusTable(packCorpusStats(c.serialize({}, 2), 'same'), 'same');
  const r = surfaceRecords(table);
  // each one differing from a surface in one unit: in the first two, the next two, or past the fourth
  const probes = [...words, '坏', '好地', '好的们', '好地人们', '好的人们去', '好的人们来了么', '好的人们来了吗？', '', 'a', 'ab\u0001', '𠀁字', '\u0001'];
  for (let k = 0; k < table.words.length; k++) {
    for (const s of probes) assert.equal(sameSurface(r, table.words.units, k, s), table.words.get(k) === s, `${JSON.stringify(table.words.get(k))} vs ${JSON.stringify(s)}`);
  }
  assert.equal(table.words.length, words.length);
});
