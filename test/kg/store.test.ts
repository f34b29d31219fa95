import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KgStore } from '../../src/kg/store.js';
import { FilmkwError } from '../../src/errors.js';
import type { KgData, Relation } from '../../src/kg/model.js';
import { smallKg } from '../fixtures/kg/small.js';

test('KgStore: lookup, neighbours, relationCount, stats on a small KG', () => {
  const s = KgStore.fromData(smallKg());
  assert.equal(s.entityCount, 7);
  const wj = s.entityIndex('person/douban/10');
  const m1 = s.entityIndex('movie/douban/1');
  const m2 = s.entityIndex('movie/douban/2');
  const ch = s.entityIndex('character/movie/douban/1/伍万里');
  assert.ok(wj >= 0 && m1 >= 0 && m2 >= 0 && ch >= 0);
  assert.equal(s.entityIndex('nope'), -1);
  assert.deepEqual(s.lookup('吴京'), [wj]);
  assert.deepEqual(s.lookup('冰雪长津湖'), [m1]);
  assert.deepEqual(s.lookupName('冰雪长津湖'), []);
  assert.deepEqual(s.lookup('Wolf  Warrior 2 '), [m2], 'normalised lookup of an ALIAS relation target');
  assert.deepEqual(s.lookup('战狼２'), [m2], 'full-width digit folds');
  assert.deepEqual(s.aliasesOf(m2), ['Wolf Warrior 2']);
  assert.equal(s.relationCount(wj, m2), 2);
  assert.equal(s.relationCount(m2, wj), 2);
  assert.equal(s.relationCount(wj, m1), 1, 'duplicate relation counted once');
  assert.equal(s.relationCount(ch, m1), 1, 'character belongs to its movie');
  assert.equal(s.relationCount(wj, ch), 0);
  assert.deepEqual([...s.neighbours(m1)], [s.entityIndex('genre/战争'), wj, s.entityIndex('person/douban/11'), ch].sort((a, b) => a - b));
  const st = s.stats();
  assert.equal(st.entities.total, 7);
  assert.equal(st.entities.byKind.Genre, 2);
  assert.equal(st.relations.total, 8);
  assert.equal(st.relations.byKind.ACTED_IN, 3);
  assert.equal(st.relations.byKind.ALIAS, 1);
  assert.equal(s.buildReport?.duplicateRelations, 1);
});

test('KgStore: toData is canonical and the content hash ignores input order', () => {
  const d = smallKg();
  const a = KgStore.fromData(d);
  const shuffled: KgData = { entities: [...d.entities].reverse(), relations: [...d.relations].sort(() => Math.random() - 0.5) };
  const b = KgStore.fromData(shuffled);
  assert.equal(a.contentHash, b.contentHash);
  assert.match(a.contentHash, /^[0-9a-f]{64}$/);
  const t = a.toData();
  assert.deepEqual(t, b.toData());
  assert.deepEqual(t.entities.map((e) => e.id), [...t.entities.map((e) => e.id)].sort());
  assert.equal(t.relations.length, 8);
  assert.equal(KgStore.fromData(t).contentHash, a.contentHash);
  const changed = smallKg();
  (changed.relations[0] as Relation).kind = 'WROTE';
  assert.notEqual(KgStore.fromData(changed).contentHash, a.contentHash);
});

test('KgStore: dangling relation is an INPUT error naming it; drop mode counts it', () => {
  const d = smallKg();
  d.relations.push({ kind: 'ACTED_IN', from: 'person/douban/99', to: 'movie/douban/1' });
  assert.throws(() => KgStore.fromData(d), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /person\/douban\/99/.test(e.message));
  const s = KgStore.fromData(d, { dangling: 'drop' });
  assert.equal(s.buildReport?.danglingDropped, 1);
  assert.equal(s.stats().relations.total, 8);
});

test('KgStore: empty KG', () => {
  const s = KgStore.fromData({ entities: [], relations: [] });
  assert.equal(s.entityCount, 0);
  assert.deepEqual(s.lookup('x'), []);
  assert.equal(s.relationCount(0, 1), 0);
  assert.deepEqual([...s.names()], []);
});

test('KgStore: lookup misses and non-normalised queries (fast path agrees with normalizeName)', () => {
  const s = KgStore.fromData(smallKg());
  const m2 = s.entityIndex('movie/douban/2');
  for (const q of ['战狼2', ' 战狼2', '战狼2 ', '战狼２', '\u3000战狼2']) assert.deepEqual(s.lookup(q), [m2], JSON.stringify(q));
  for (const q of ['战狼3', '', ' ', 'abc', '電影', '战狼2x']) assert.deepEqual(s.lookup(q), [], JSON.stringify(q));
  assert.deepEqual(s.lookupName('Wolf Warrior 2'), []);
  assert.deepEqual(s.lookup('Wolf Warrior 2'), [m2]);
});

test('KgStore: csr() agrees with neighbours() and relationCount()', () => {
  const s = KgStore.fromData(smallKg());
  const { offsets, targets, counts } = s.csr();
  for (let i = 0; i < s.entityCount; i++) {
    assert.deepEqual(targets.subarray(offsets[i], offsets[i + 1]), s.neighbours(i));
    for (let k = offsets[i]; k < offsets[i + 1]; k++) assert.equal(counts[k], s.relationCount(i, targets[k]));
    assert.equal(s.degree(i), offsets[i + 1] - offsets[i]);
  }
});
