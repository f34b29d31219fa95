import { test } from 'node:test';
import assert from 'node:assert/strict';
import { syntheticKg, syntheticKgStore } from '../../src/kg/synthetic.js';
import { KgStore } from '../../src/kg/store.js';

test('syntheticKg: deterministic per seed, exact counts, all relation kinds', () => {
  const a = syntheticKgStore({ entities: 3000, relations: 60_000, seed: 42 });
  const b = syntheticKgStore({ entities: 3000, relations: 60_000, seed: 42 });
  const c = syntheticKgStore({ entities: 3000, relations: 60_000, seed: 43 });
  assert.equal(a.contentHash, b.contentHash);
  assert.notEqual(a.contentHash, c.contentHash);
  const st = a.stats();
  assert.equal(st.entities.total, 3000);
  assert.equal(st.relations.total, 60_000);
  for (const [k, n] of Object.entries(st.relations.byKind)) assert.ok(n > 0, `${k} present`);
  for (const [k, n] of Object.entries(st.entities.byKind)) assert.ok(n > 0, `${k} present`);
  assert.equal(a.buildReport?.duplicateRelations, 0);
});

test('syntheticKg: film-like degree skew (hubs far above the median)', () => {
  const s = syntheticKgStore({ entities: 5000, relations: 200_000, seed: 1 });
  const people: number[] = [];
  const genres: number[] = [];
  for (let i = 0; i < s.entityCount; i++) {
    if (s.kindOf(i) === 'Person') people.push(s.degree(i));
    if (s.kindOf(i) === 'Genre') genres.push(s.degree(i));
  }
  people.sort((x, y) => x - y);
  genres.sort((x, y) => x - y);
  const median = people[people.length >> 1];
  assert.ok(people[people.length - 1] > 10 * median, `top person ${people[people.length - 1]} vs median ${median}`);
  assert.ok(genres[genres.length - 1] > 5 * genres[genres.length >> 1], 'genre hubs');
});

test('syntheticKg as KgData rebuilds the same store', () => {
  const d = syntheticKg({ entities: 400, relations: 5000, seed: 5 });
  assert.equal(d.relations.length, 5000);
  assert.equal(KgStore.fromData(d).contentHash, syntheticKgStore({ entities: 400, relations: 5000, seed: 5 }).contentHash);
});
