/**
 * Entity resolution (src/kg/resolve.ts): the person rules (same film; the only id-bearing person of the
 * name; homonyms left apart), the film rule (same title and people in common, never title alone), order
 * independence; and through the builder: ids kept, sourceIds, relations moved, characters moved with
 * their film, the report, no person name with two entities sharing a film.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { resolveFilms, resolvePersons, type ResolveFilm, type ResolvePerson } from '../../src/kg/resolve.js';
import { KgMergeBuilder, personKey, type SourceCtx } from '../../src/kg/builder.js';
import { KgStore } from '../../src/kg/store.js';

const p = (id: string, names: string[], films: string[]): ResolvePerson => ({ id, names, films: new Set(films), hasSourceId: !id.startsWith('person/name/') });

test('person rule "same film": a name-only entity goes to the one Douban namesake it shares a film with', () => {
  const r = resolvePersons(
    [p('person/douban/1', ['张国荣'], ['m1']), p('person/douban/2', ['张国荣'], ['m2']), p('person/name/张国荣', ['张国荣'], ['m2', 'm3'])],
    personKey,
  );
  assert.deepEqual([...r.target], [['person/name/张国荣', 'person/douban/2']]);
  assert.deepEqual(r.merges, [{ from: 'person/name/张国荣', to: 'person/douban/2', rule: 'same film', name: '张国荣', shared: ['m2'] }]);
  assert.deepEqual(r.ambiguous, []);
});

test('person rule "only id-bearing person of the name": no film in common, one Douban namesake (loose comparison of names)', () => {
  const r = resolvePersons([p('person/douban/1054398', ['张艺谋'], ['m1']), p('person/name/张艺谋', ['张艺谋'], ['m9']), p('person/name/迈克尔•法斯宾德', ['迈克尔•法斯宾德'], []), p('person/douban/7', ['迈克尔·法斯宾德'], ['m2'])], personKey);
  assert.deepEqual(
    r.merges.map((m) => [m.from, m.to, m.rule]),
    [
      ['person/name/张艺谋', 'person/douban/1054398', 'only id-bearing person of the name'],
      ['person/name/迈克尔•法斯宾德', 'person/douban/7', 'only id-bearing person of the name'],
    ],
  );
});

test('homonyms: several Douban namesakes and no film in common (or films with several) leave the name-only entity apart, reported; two ids are never merged', () => {
  const r = resolvePersons(
    [
      p('person/douban/1', ['张翰'], ['m1']),
      p('person/douban/2', ['张翰'], ['m2']),
      p('person/name/张翰', ['张翰'], ['m3']),
      p('person/douban/3', ['王伟'], ['m4']),
      p('person/douban/4', ['王伟'], ['m5']),
      p('person/name/王伟', ['王伟'], ['m4', 'm5']),
    ],
    personKey,
  );
  assert.equal(r.target.size, 0);
  assert.deepEqual(
    r.ambiguous.map((a) => [a.id, a.reason, a.candidates]),
    [
      ['person/name/张翰', 'several id-bearing people of the name', ['person/douban/1', 'person/douban/2']],
      ['person/name/王伟', 'shares films with several id-bearing people', ['person/douban/3', 'person/douban/4']],
    ],
  );
  // a name-only entity whose two names point at two different ids is ambiguous too
  const two = resolvePersons([p('person/douban/1', ['甲'], []), p('person/douban/2', ['乙'], []), p('person/name/甲', ['甲', '乙'], [])], personKey);
  assert.deepEqual(two.ambiguous.map((a) => a.reason), ['its names belong to different id-bearing people']);
  assert.equal(two.target.size, 0);
});

test('name-only entities of one name that share a film are one; the group keeps the preferred id, or goes to its Douban person', () => {
  const alone = resolvePersons([p('person/name/AlainGodard', ['AlainGodard'], ['m1']), p('person/name/Alain Godard', ['Alain Godard'], ['m1', 'm2'])], personKey, (ids) =>
    ids.includes('person/name/Alain Godard') ? 'person/name/Alain Godard' : undefined,
  );
  assert.deepEqual([...alone.target], [['person/name/AlainGodard', 'person/name/Alain Godard']]);
  // no film in common: apart (no source id to decide)
  assert.equal(resolvePersons([p('person/name/A B', ['A B'], ['m1']), p('person/name/AB', ['AB'], ['m2'])], personKey).target.size, 0);
  // 玉木 宏 and 玉木宏 share a film; the Douban 玉木宏 takes both
  const withId = resolvePersons([p('person/douban/9', ['玉木宏'], ['m7']), p('person/name/玉木 宏', ['玉木 宏'], ['m1']), p('person/name/玉木宏', ['玉木宏'], ['m1'])], personKey);
  assert.deepEqual(
    [...withId.target].sort(),
    [
      ['person/name/玉木 宏', 'person/douban/9'],
      ['person/name/玉木宏', 'person/douban/9'],
    ],
  );
});

test('the person rules do not depend on the order of the entities', () => {
  const people = [
    p('person/douban/1', ['张国荣'], ['m1']),
    p('person/douban/2', ['张国荣'], ['m2']),
    p('person/name/张国荣', ['张国荣'], ['m2']),
    p('person/douban/3', ['吴京'], ['m3']),
    p('person/name/吴京', ['吴京'], ['m9']),
    p('person/name/AB', ['AB'], ['m4']),
    p('person/name/A B', ['A B'], ['m4']),
    p('person/douban/5', ['张翰'], []),
    p('person/douban/6', ['张翰'], []),
    p('person/name/张翰', ['张翰'], []),
  ];
  const want = resolvePersons(people, personKey);
  fc.assert(
    fc.property(fc.shuffledSubarray(people, { minLength: people.length, maxLength: people.length }), (shuffled) => {
      const got = resolvePersons(shuffled, personKey);
      assert.deepEqual([...got.target].sort(), [...want.target].sort());
      assert.deepEqual(got.merges, want.merges);
      assert.deepEqual(got.ambiguous, want.ambiguous);
    }),
  );
});

const film = (id: string, names: string[], people: [string, string[]][]): ResolveFilm => ({
  id,
  names,
  people: new Map(people.map(([who, roles]) => [who, new Set(roles)])),
  hasSourceId: !id.startsWith('movie/name/'),
});

test('film rule: same title and a director (or two people) in common; never by title alone; several candidates stay apart', () => {
  const r = resolveFilms([
    film('movie/douban/1306123', ['英雄', 'Hero'], [['p/zhang', ['DIRECTED', 'WROTE']], ['p/li', ['ACTED_IN']]]),
    film('movie/name/英雄', ['英雄'], [['p/zhang', ['DIRECTED']]]),
    // a remake: same title, nobody in common
    film('movie/douban/2', ['功夫'], [['p/a', ['DIRECTED']]]),
    film('movie/name/功夫', ['功夫'], [['p/b', ['DIRECTED']], ['p/c', ['ACTED_IN']]]),
    // one actor in common is not enough (a cameo in a remake)
    film('movie/douban/3', ['家'], [['p/d', ['ACTED_IN']]]),
    film('movie/name/家', ['家'], [['p/d', ['ACTED_IN']], ['p/e', ['DIRECTED']]]),
    // two people in common (no director): the same film
    film('movie/douban/4', ['活着'], [['p/f', ['ACTED_IN']], ['p/g', ['ACTED_IN']]]),
    film('movie/name/活着', ['活着'], [['p/f', ['ACTED_IN']], ['p/g', ['ACTED_IN']]]),
    // two Douban films qualify: apart
    film('movie/douban/5', ['无双'], [['p/h', ['DIRECTED']]]),
    film('movie/douban/6', ['无双'], [['p/h', ['DIRECTED']]]),
    film('movie/name/无双', ['无双'], [['p/h', ['DIRECTED']]]),
  ]);
  assert.deepEqual([...r.target].sort(), [
    ['movie/name/活着', 'movie/douban/4'],
    ['movie/name/英雄', 'movie/douban/1306123'],
  ]);
  assert.deepEqual(r.merges.find((m) => m.from === 'movie/name/英雄'), { from: 'movie/name/英雄', to: 'movie/douban/1306123', name: '英雄', people: 1, directors: 1 });
  assert.deepEqual(r.ambiguous.map((a) => [a.id, a.candidates]), [['movie/name/无双', ['movie/douban/5', 'movie/douban/6']]]);
  // two films with source ids are never merged, whatever they share
  assert.equal(resolveFilms([film('movie/douban/1', ['A'], [['x', ['DIRECTED']]]), film('movie/douban/2', ['A'], [['x', ['DIRECTED']]])]).target.size, 0);
});

const KGQA: SourceCtx = { kind: 'kgqa', spec: 'kgqa:a' };
const DCSV: SourceCtx = { kind: 'douban-csv', spec: 'douban-csv:c' };
const CSV: SourceCtx = { kind: 'csv', spec: 'csv:demo' };
const at = (line: number) => ({ file: 'f', line });

/** 张艺谋 with his Douban id on 英雄 (kgqa) and by name on 一秒钟 (douban-csv) and on a demo-like csv 英雄 with a character. */
function feed(b: KgMergeBuilder, order: 'a' | 'b'): void {
  const steps = [
    () => {
      const m = b.movie({ subjectId: '1306123', title: '英雄' }, KGQA, at(1))!;
      b.credit(m, 'DIRECTED', { name: '张艺谋', celebrityId: '1054398' }, KGQA, at(1));
      b.credit(m, 'ACTED_IN', { name: '李连杰', celebrityId: '1025146' }, KGQA, at(1));
    },
    () => {
      const m = b.movie({ subjectId: '30314127', title: '一秒钟' }, DCSV, at(2))!;
      b.credit(m, 'DIRECTED', { name: '张艺谋' }, DCSV, at(2));
    },
    () => {
      b.entity({ id: 'movie/name/英雄', kind: 'Movie', name: '英雄', aliases: ['Hero', '英雄(港)'] }, CSV, at(3));
      b.entity({ id: 'person/name/张艺谋', kind: 'Person', name: '张艺谋' }, CSV, at(4));
      b.entity({ id: 'person/name/李连杰', kind: 'Person', name: '李连杰' }, CSV, at(5));
      b.entity({ id: 'character/movie/name/英雄/无名', kind: 'Character', name: '无名', movieId: 'movie/name/英雄' }, CSV, at(6));
      b.relation({ kind: 'DIRECTED', from: 'person/name/张艺谋', to: 'movie/name/英雄' }, CSV, at(7));
      b.relation({ kind: 'ACTED_IN', from: 'person/name/李连杰', to: 'movie/name/英雄' }, CSV, at(8));
      b.relation({ kind: 'PLAYED', from: 'person/name/李连杰', to: 'character/movie/name/英雄/无名', movieId: 'movie/name/英雄' }, CSV, at(9));
      b.relation({ kind: 'ALIAS', from: 'movie/name/英雄', to: 'Hero' }, CSV, at(10));
    },
  ];
  for (const s of order === 'a' ? steps : [...steps].reverse()) s();
}

test('through the builder: one 张艺谋 (the Douban id, sourceIds), one 英雄 with the demo character, relations moved, the same content whatever the order', () => {
  const built = (['a', 'b'] as const).map((o) => {
    const b = new KgMergeBuilder({ minePlayed: false });
    feed(b, o);
    return b.build();
  });
  const [{ data, report }] = built;
  assert.deepEqual(KgStore.fromData(built[1].data).toData(), KgStore.fromData(data).toData(), 'source order does not matter');
  const zhang = data.entities.filter((e) => e.kind === 'Person' && e.name === '张艺谋');
  assert.deepEqual(zhang.map((e) => [e.id, e.sourceIds]), [['person/douban/1054398', ['person/douban/1054398', 'person/name/张艺谋']]]);
  const hero = data.entities.filter((e) => e.kind === 'Movie' && e.name === '英雄');
  assert.deepEqual(hero.map((e) => [e.id, e.aliases, e.sourceIds]), [['movie/douban/1306123', ['Hero'], ['movie/douban/1306123', 'movie/name/英雄']]]);
  const rels = data.relations.filter((r) => r.kind !== 'ALIAS').map((r) => `${r.from} ${r.kind} ${r.to}${r.movieId ? ` @${r.movieId}` : ''}`).sort();
  assert.deepEqual(rels, [
    'person/douban/1025146 ACTED_IN movie/douban/1306123',
    'person/douban/1025146 PLAYED character/movie/douban/1306123/无名 @movie/douban/1306123',
    'person/douban/1054398 DIRECTED movie/douban/1306123',
    'person/douban/1054398 DIRECTED movie/douban/30314127',
  ]);
  assert.deepEqual(
    data.entities.filter((e) => e.kind === 'Character').map((e) => [e.id, e.movieId, e.sourceIds]),
    [['character/movie/douban/1306123/无名', 'movie/douban/1306123', ['character/movie/douban/1306123/无名', 'character/movie/name/英雄/无名']]],
  );
  // the report: merges by rule with examples, relations joined
  const rules = Object.fromEntries(report.resolved.rules.map((g) => [g.reason, g.count]));
  // 张艺谋 and 李连杰 of the csv share no Douban film before the films are merged: the only namesakes with an id
  assert.deepEqual(rules, { 'only id-bearing person of the name': 2, 'film: same title and people in common': 1, 'character: moved with its film': 1 });
  assert.equal(report.resolved.merged, report.resolved.rules.reduce((n, g) => n + g.count, 0));
  assert.ok(report.resolved.relationsJoined >= 2, `${report.resolved.relationsJoined}`);
  assert.match(report.resolved.rules.find((g) => g.reason === 'film: same title and people in common')!.examples[0], /^movie\/name\/英雄 → movie\/douban\/1306123 \(英雄; 2 people, 1 director in common\)$/);
  assert.deepEqual(report.aliases.changed.map((g) => [g.reason, g.count]), [['region or note tag removed', 1]]);
  // no person name is left with two entities that share a film
  const films = new Map<string, Set<string>>();
  for (const r of data.relations) if (r.kind === 'DIRECTED' || r.kind === 'ACTED_IN' || r.kind === 'WROTE') films.set(r.from, new Set([...(films.get(r.from) ?? []), r.to]));
  const byName = new Map<string, string[]>();
  for (const e of data.entities) if (e.kind === 'Person') byName.set(e.name, [...(byName.get(e.name) ?? []), e.id]);
  for (const ids of byName.values()) assert.equal(ids.length, 1);
});
