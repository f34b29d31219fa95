/**
 * The document context (issue 24 item 1): resolving a record's film in the KG (src/pipeline/context.ts)
 * and the re-ranker's context features (src/pipeline/rerank-context.ts) read through `--explain` with
 * a model that lists them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KgStore } from '../../src/kg/store.js';
import type { Entity, Relation } from '../../src/kg/model.js';
import { loadKg } from '../../src/kg/load.js';
import { resolveFilm, subjectOf, SubjectResolver } from '../../src/pipeline/context.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { zeroRerankModel } from '../../src/pipeline/rerank-model.js';
import { RERANK_FEATURES } from '../../src/pipeline/rerank.js';

const film = (id: string, name: string, aliases: string[] = []): Entity => ({ id, kind: 'Movie', name, surfaces: [name], aliases });
const person = (id: string, name: string): Entity => ({ id, kind: 'Person', name, surfaces: [name], aliases: [] });

/** Two films named 师父: the one with more relations wins a name lookup. */
function smallKg(): KgStore {
  const entities = [
    film('movie/douban/100', '长津湖', ['冰雪长津湖']),
    film('movie/douban/200', '师父'),
    film('movie/douban/300', '师父'),
    person('person/douban/1', '吴京'),
    person('person/douban/2', '徐浩峰'),
    person('person/douban/3', '廖凡'),
    film('movie/douban/400', '战狼2'),
  ];
  const relations: Relation[] = [
    { kind: 'ACTED_IN', from: 'person/douban/1', to: 'movie/douban/100' },
    { kind: 'ACTED_IN', from: 'person/douban/1', to: 'movie/douban/400' },
    { kind: 'DIRECTED', from: 'person/douban/2', to: 'movie/douban/300' },
    { kind: 'ACTED_IN', from: 'person/douban/3', to: 'movie/douban/300' },
    { kind: 'ALIAS', from: 'movie/douban/100', to: '冰雪长津湖' },
  ];
  return KgStore.fromData({ entities, relations });
}

test('resolveFilm: a Douban id (digits, entity id, subject URL) first, then a film name, then an alias; the best-linked film of a name; never a person', () => {
  const kg = smallKg();
  const id = (v: string) => {
    const e = resolveFilm(kg, v);
    return e < 0 ? null : kg.idOf(e);
  };
  assert.equal(id('100'), 'movie/douban/100');
  assert.equal(id(' movie/douban/100 '), 'movie/douban/100');
  assert.equal(id('https://movie.douban.com/subject/100/'), 'movie/douban/100');
  assert.equal(id('https://movie.douban.com/subject/100/comments?start=20'), 'movie/douban/100');
  assert.equal(id('长津湖'), 'movie/douban/100');
  assert.equal(id('冰雪长津湖'), 'movie/douban/100');
  assert.equal(id('师父'), 'movie/douban/300', 'two relations beat none');
  assert.equal(id('吴京'), null, 'a person is no film');
  assert.equal(id('999'), null);
  assert.equal(id('  '), null);
  assert.equal(id('person/douban/1'), null);
});

test('subjectOf: names normalised, one hop (cast, director) and two hops (another film of the cast), sorted; the resolver asks the KG once per value', () => {
  const kg = smallKg();
  const s = subjectOf(kg, resolveFilm(kg, '100'));
  assert.deepEqual([...s.names].sort(), ['冰雪长津湖', '长津湖']);
  const ids = (a: Int32Array) => [...a].map((e) => kg.idOf(e)).sort();
  assert.deepEqual(ids(s.hop1), ['person/douban/1']);
  assert.deepEqual(ids(s.hop2), ['movie/douban/400']);
  assert.deepEqual([...s.hop1], [...s.hop1].sort((a, b) => a - b));
  let lookups = 0;
  const counting = Object.assign(Object.create(kg) as KgStore, { lookupName: (n: string) => (lookups++, kg.lookupName(n)) });
  const r = new SubjectResolver(counting);
  const a = r.resolve('长津湖');
  assert.equal(r.resolve('长津湖'), a);
  assert.equal(lookups, 1);
  assert.equal(r.resolve('no such film'), null);
  assert.equal(r.resolve('no such film'), null);
  assert.equal(lookups, 2);
});

const TEXT = '《长津湖》由吴京、易烊千玺主演，讲述伍万里的成长。吴京还主演了《战狼2》，其中冷锋一角深入人心。长津湖战役惨烈。';

/** Every candidate's context features, from --explain under a model that lists them. */
function contextFeatures(call: { film?: string; title?: string }) {
  return loadKg({}).then((kg) => {
    const extractor = createExtractor({ preset: 'filmkw-rerank', kg, rerankModel: zeroRerankModel(['corpusFilmDocs']), corpusStats: null });
    const names = ['filmKnown', 'subjectFilm', 'subjectPart', 'subjectHop1', 'subjectHop2', 'subjectOtherFilm', 'titleKnown', 'inTitle', 'corpusOn'];
    const out = new Map<string, number[]>();
    for (const k of extractor.extract(TEXT, { topK: 100, explain: true, ...call })) {
      const f = new Map(k.explain!.rerank!.features.map((x) => [x.feature, x.value]));
      out.set(k.word, names.map((n) => f.get(n)!));
    }
    return out;
  });
}

test('context features (demo KG): the subject film and its short form, one and two KG hops, another film, the title; all 0 without context', async () => {
  assert.ok(RERANK_FEATURES.indexOf('filmKnown') < RERANK_FEATURES.indexOf('corpusFilmDocs'));
  const f = await contextFeatures({ film: '长津湖', title: '长津湖与吴京' });
  //                                    known film part hop1 hop2 other titleK inTitle corpusOn
  assert.deepEqual(f.get('长津湖'), [1, 1, 0, 0, 0, 0, 1, 1, 0]);
  assert.deepEqual(f.get('吴京'), [1, 0, 0, 1, 0, 0, 1, 1, 0]);
  assert.deepEqual(f.get('伍万里'), [1, 0, 0, 1, 0, 0, 1, 0, 0], 'a character of the film: one hop');
  assert.deepEqual(f.get('战狼2'), [1, 0, 0, 0, 1, 1, 1, 0, 0], 'another film of its actor: two hops, another film');
  assert.deepEqual(f.get('冷锋'), [1, 0, 0, 0, 1, 0, 1, 0, 0]);
  const none = await contextFeatures({});
  for (const [word, values] of none) assert.deepEqual(values, [0, 0, 0, 0, 0, 0, 0, 0, 0], word);
  // a film the KG lacks: no subject, the title still counts
  const unknown = await contextFeatures({ film: '没有这部电影', title: '长津湖' });
  assert.deepEqual(unknown.get('长津湖'), [0, 0, 0, 0, 0, 0, 1, 1, 0]);
});

test('context features: a short form of the film title (a part of its name) is subjectPart, not subjectFilm', async () => {
  const kg = await loadKg({});
  const extractor = createExtractor({ preset: 'filmkw-rerank', kg, rerankModel: zeroRerankModel(['corpusFilmDocs']), corpusStats: null });
  const kws = extractor.extract('长津湖战役的故事。长津湖很冷。', { topK: 50, explain: true, film: 'The Battle at Lake Changjin' });
  const value = (word: string, feature: string) => kws.find((k) => k.word === word)?.explain!.rerank!.features.find((x) => x.feature === feature)?.value;
  assert.equal(value('长津湖', 'subjectFilm'), 1, 'resolved by its alias');
  // 长津 is no candidate of this text, so a shorter title: the subject 战狼2 and the word 战狼
  const wolf = extractor.extract('战狼这部电影很火，战狼的故事。', { topK: 50, explain: true, film: '战狼2' });
  const f = wolf.find((k) => k.word === '战狼')?.explain!.rerank!.features;
  assert.ok(f, '战狼 is a candidate');
  assert.equal(f.find((x) => x.feature === 'subjectPart')!.value, 1);
  assert.equal(f.find((x) => x.feature === 'subjectFilm')!.value, 0);
});
