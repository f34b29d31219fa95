/**
 * Reliability of the embedded KG store and its snapshot (issue 5, KG edge cases): an entity with 100,000
 * neighbours, aliases colliding with other entities' names, names with spaces and punctuation, duplicate
 * rows, self-relations, and a property test of the store's invariants on random KGs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { KgStore } from '../../src/kg/store.js';
import { loadSnapshot, saveSnapshot } from '../../src/kg/snapshot.js';
import { FilmkwError } from '../../src/errors.js';
import { RELATION_KINDS, normalizeName, type Entity, type KgData, type Relation } from '../../src/kg/model.js';

const dir = mkdtempSync(join(tmpdir(), 'filmkw-rel-kg-'));
const ent = (id: string, kind: Entity['kind'], name: string, extra: Partial<Entity> = {}): Entity => ({ id, kind, name, surfaces: [name], aliases: [], ...extra });

test('an entity with 100,000 neighbours: sorted neighbours, relation counts, snapshot round trip', async () => {
  const N = 100_000;
  const entities: Entity[] = [ent('genre/剧情', 'Genre', '剧情')];
  const relations: Relation[] = [];
  for (let i = 0; i < N; i++) {
    const id = `movie/douban/${i}`;
    entities.push(ent(id, 'Movie', `片${i}`));
    relations.push({ kind: 'HAS_GENRE', from: id, to: 'genre/剧情' });
    if (i % 1000 === 0) relations.push({ kind: 'HAS_GENRE', from: id, to: 'genre/剧情' }); // duplicates
  }
  // (a build quadratic in the hub's degree would not finish: 10^10 steps)
  const s = KgStore.fromData({ entities, relations });
  const hub = s.entityIndex('genre/剧情');
  const nb = s.neighbours(hub);
  assert.equal(nb.length, N);
  for (let i = 1; i < nb.length; i++) assert.ok(nb[i] > nb[i - 1]);
  assert.ok(!nb.includes(hub));
  assert.equal(s.relationCount(hub, s.entityIndex('movie/douban/77')), 1);
  assert.equal(s.relationCount(s.entityIndex('movie/douban/99999'), hub), 1);
  assert.deepEqual([...s.neighbours(s.entityIndex('movie/douban/5'))], [hub]);
  assert.equal(s.buildReport?.duplicateRelations, 100);
  const p = join(dir, 'hub.fkg');
  await saveSnapshot(s, p);
  const l = await loadSnapshot(p);
  assert.equal(l.contentHash, s.contentHash);
  assert.deepEqual(l.neighbours(hub), nb);
});

test('aliases colliding with other entities\' names: lookup has both, lookupName only the named one', () => {
  const d: KgData = {
    entities: [
      ent('movie/douban/1', 'Movie', '英雄'),
      ent('movie/douban/2', 'Movie', '无间道', { aliases: ['英雄'] }), // entity-level alias
      ent('person/douban/3', 'Person', '阿凡达'),
      ent('movie/douban/4', 'Movie', 'Avatar'),
      ent('character/movie/douban/1/英雄', 'Character', '英雄', { movieId: 'movie/douban/1' }),
    ],
    relations: [{ kind: 'ALIAS', from: 'movie/douban/4', to: '阿凡达' }], // ALIAS target = a person's name
  };
  const s = KgStore.fromData(d);
  const [m1, m2, p3, m4, c1] = ['movie/douban/1', 'movie/douban/2', 'person/douban/3', 'movie/douban/4', 'character/movie/douban/1/英雄'].map((x) => s.entityIndex(x));
  assert.deepEqual(s.lookup('英雄'), [m1, m2, c1].sort((a, b) => a - b));
  assert.deepEqual(s.lookupName('英雄'), [m1, c1].sort((a, b) => a - b));
  assert.deepEqual(s.lookup('阿凡达'), [p3, m4].sort((a, b) => a - b));
  assert.deepEqual(s.lookupName('阿凡达'), [p3]);
  const names = [...s.names()];
  assert.equal(names.filter((n) => n.name === '英雄').length, 1, 'each name listed once');
  assert.deepEqual(names.find((n) => n.name === '英雄')?.kinds, ['Movie', 'Character']);
  assert.deepEqual(names.find((n) => n.name === '阿凡达')?.kinds, ['Movie', 'Person']);
  assert.equal(s.relationCount(m1, c1), 1, 'character belongs to its movie');
});

test('names with spaces, punctuation, quotes, control and full-width characters survive store and snapshot', async () => {
  const raw = ['The Shawshank Redemption', '你好，李焕英', 'Léon: The Professional', '007：大破天幕杀机', 'He said "hi"\\', '  two\t\tspaces \n', '莱昂纳多·迪卡普里奥', 'A\u0000B', '𠮷野家', '😀 emoji'];
  const entities = raw.map((r, i) => ent(`movie/name/${normalizeName(r)}#${i}`, 'Movie', normalizeName(r), { surfaces: [r] }));
  const s = KgStore.fromData({ entities, relations: [{ kind: 'ALIAS', from: entities[0].id, to: 'Rita Hayworth and Shawshank Redemption' }] });
  raw.forEach((r, i) => assert.deepEqual(s.lookup(r), [s.entityIndex(entities[i].id)], JSON.stringify(r)));
  assert.equal(s.nameOf(s.entityIndex(entities[1].id)), '你好,李焕英');
  assert.deepEqual(s.lookup('Rita  Hayworth and Shawshank Redemption'), [s.entityIndex(entities[0].id)]);
  const p = join(dir, 'names.fkg');
  await saveSnapshot(s, p);
  const l = await loadSnapshot(p);
  assert.deepEqual(l.toData(), s.toData());
  raw.forEach((r, i) => assert.deepEqual(l.lookup(r), [l.entityIndex(entities[i].id)]));
  assert.equal(l.contentHash, s.contentHash);
});

test('duplicate rows: identical relations once, entity rows merged, conflicting rows a clear error', () => {
  const d: KgData = {
    entities: [
      ent('person/douban/1', 'Person', '吴京', { surfaces: ['吴京'] }),
      ent('person/douban/1', 'Person', '吴京', { surfaces: ['吳京'] }),
      ent('movie/douban/2', 'Movie', '战狼2', { aliases: ['Wolf Warrior 2'] }),
      ent('movie/douban/2', 'Movie', '战狼2', { aliases: ['战狼II'] }),
    ],
    relations: Array.from({ length: 5 }, () => ({ kind: 'DIRECTED' as const, from: 'person/douban/1', to: 'movie/douban/2' })),
  };
  const s = KgStore.fromData(d);
  assert.equal(s.entityCount, 2);
  assert.equal(s.stats().relations.total, 1);
  assert.equal(s.buildReport?.duplicateRelations, 4);
  assert.equal(s.buildReport?.duplicateEntities, 2);
  assert.deepEqual(s.surfacesOf(s.entityIndex('person/douban/1')), ['吳京', '吴京'].sort());
  assert.deepEqual(s.lookup('战狼II'), [s.entityIndex('movie/douban/2')]);
  assert.equal(s.relationCount(0, 1), 1);
  d.entities.push(ent('person/douban/1', 'Movie', '吴京'));
  assert.throws(() => KgStore.fromData(d), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /person\/douban\/1 appears twice with different kind \('Person' vs 'Movie'\)/.test(e.message));
});

test('self-relations: kept in the content and stats, never neighbours, counted in the build report', () => {
  const s = KgStore.fromData({
    entities: [ent('person/douban/1', 'Person', '周星驰'), ent('movie/douban/2', 'Movie', '功夫')],
    relations: [
      { kind: 'ACTED_IN', from: 'person/douban/1', to: 'person/douban/1' },
      { kind: 'DIRECTED', from: 'movie/douban/2', to: 'movie/douban/2' },
      { kind: 'ACTED_IN', from: 'person/douban/1', to: 'movie/douban/2' },
      { kind: 'ALIAS', from: 'movie/douban/2', to: '功夫' }, // alias equal to the own name: harmless
    ],
  });
  const p = s.entityIndex('person/douban/1');
  const m = s.entityIndex('movie/douban/2');
  assert.deepEqual([...s.neighbours(p)], [m]);
  assert.deepEqual([...s.neighbours(m)], [p]);
  assert.equal(s.relationCount(p, p), 0);
  assert.equal(s.buildReport?.selfRelations, 2);
  assert.equal(s.selfRelations(), 2);
  assert.equal(s.stats().relations.total, 4);
  assert.deepEqual(s.lookup('功夫'), [m]);
});

test('property: random KGs keep the store invariants; order does not change the content hash', () => {
  const N = 12;
  const arbRel = fc.record({
    kind: fc.constantFrom(...RELATION_KINDS),
    from: fc.nat(N - 1),
    to: fc.nat(N - 1),
    alias: fc.constantFrom('甲', '乙', 'x y', '片0'),
    movie: fc.option(fc.nat(N - 1), { nil: undefined }),
  });
  fc.assert(
    fc.property(fc.array(arbRel, { maxLength: 60 }), fc.array(fc.nat(N - 1), { maxLength: 4 }), fc.integer(), (rels, charIdx, seed) => {
      const entities: Entity[] = Array.from({ length: N }, (_, i) =>
        charIdx.includes(i) && i > 0 ? ent(`c/${i}`, 'Character', `片${i % 5}`, { movieId: 'm/0' }) : ent(`m/${i}`, i % 3 ? 'Movie' : 'Person', `片${i % 5}`),
      );
      const id = (i: number) => entities[i].id;
      const relations: Relation[] = rels.map((r) => {
        const x: Relation = { kind: r.kind, from: id(r.from), to: r.kind === 'ALIAS' ? r.alias : id(r.to) };
        if (r.movie !== undefined) x.movieId = id(r.movie);
        return x;
      });
      if (!entities.some((e) => e.id === 'm/0')) return; // characters need their movie
      const s = KgStore.fromData({ entities, relations });
      // brute force: distinct relations per unordered pair, plus character↔movie
      const key = (a: number, b: number) => (a < b ? `${a},${b}` : `${b},${a}`);
      const cnt = new Map<string, number>();
      const seen = new Set<string>();
      for (const r of relations) {
        const k = JSON.stringify([r.kind, r.from, r.to, r.movieId ?? null]);
        if (seen.has(k) || r.kind === 'ALIAS') {
          seen.add(k);
          continue;
        }
        seen.add(k);
        const a = s.entityIndex(r.from), b = s.entityIndex(r.to);
        if (a !== b) cnt.set(key(a, b), (cnt.get(key(a, b)) ?? 0) + 1);
      }
      for (const e of entities) if (e.movieId && e.id !== e.movieId) {
        const a = s.entityIndex(e.id), b = s.entityIndex(e.movieId);
        cnt.set(key(a, b), (cnt.get(key(a, b)) ?? 0) + 1);
      }
      assert.equal(s.stats().relations.total, seen.size);
      for (let a = 0; a < N; a++) {
        const nb = [...s.neighbours(a)];
        assert.deepEqual(nb, [...new Set(nb)].sort((x, y) => x - y));
        assert.ok(!nb.includes(a));
        for (let b = 0; b < N; b++) {
          assert.equal(s.relationCount(a, b), a === b ? 0 : cnt.get(key(a, b)) ?? 0);
          assert.equal(nb.includes(b), (cnt.get(key(a, b)) ?? 0) > 0 && a !== b);
        }
      }
      // shuffled input, same hash
      let x = seed >>> 0 || 1;
      const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296);
      const shuf = <T,>(xs: T[]) => xs.map((v) => [rnd(), v] as const).sort((p, q) => p[0] - q[0]).map((p) => p[1]);
      const t = KgStore.fromData({ entities: shuf(entities), relations: shuf(relations) });
      assert.equal(t.contentHash, s.contentHash);
      assert.deepEqual(t.toData(), s.toData());
    }),
    { numRuns: 150 },
  );
});
