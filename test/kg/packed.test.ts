import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ListColumn, NameIndex, StringTable } from '../../src/kg/packed.js';
import { hashName } from '../../src/util/hash.js';

test('StringTable: packs and decodes any JS string exactly (CJK, astral, lone surrogates, empty, > 4096 units)', () => {
  const long = '长'.repeat(5000) + 'x';
  const xs = ['肖申克的救赎', '', 'Ｔｈｅ　Ｍａｔｒｉｘ', '𠮷野家', '\ud800lone', long, 'a'];
  const packed = StringTable.from(xs);
  assert.equal(packed.length, xs.length);
  assert.deepEqual([...packed.offsets], [0, 6, 6, 16, 20, 25, 5026, 5027]);
  // a table over the same typed arrays (as a snapshot loads it) decodes the same strings
  const loaded = new StringTable(packed.units, packed.offsets);
  assert.deepEqual(loaded.toArray(), xs);
  assert.equal(loaded.get(5), long);
  for (let i = 0; i < xs.length; i++) {
    assert.ok(loaded.equals(i, xs[i]), `equals ${i}`);
    assert.ok(!loaded.equals(i, xs[i] + 'y'), `longer ${i}`);
  }
  assert.ok(!loaded.equals(0, '肖申克的救贖'), 'same length, one unit differs');
  assert.equal(loaded.check(), null);
  assert.match(new StringTable(packed.units, new Int32Array([0, 7, 6])).check() ?? '', /offsets/);
});

test('ListColumn: one frozen list per entity, empty lists shared', () => {
  const lists = [['a', 'b'], [], ['肖申克'], []];
  const packed = ListColumn.from(lists);
  const loaded = new ListColumn(packed.offsets, new StringTable(packed.items.units, packed.items.offsets));
  assert.deepEqual(loaded.toArrays(), lists);
  assert.ok(Object.isFrozen(loaded.get(0)));
  assert.equal(loaded.get(1), loaded.get(3));
  assert.equal(loaded.get(0), loaded.get(0), 'decoded once');
  assert.equal(loaded.check(4), null);
  assert.match(loaded.check(5) ?? '', /offsets/);
});

test('NameIndex: names and aliases normalised, lists sorted, keys in insertion order, colliding keys found', () => {
  // entity 0..3; 2 and 3 share a name; 3 has an alias equal to the name of 0; full-width forms normalise
  const names = StringTable.from(['霸王别姬', 'Ｌｅｏｎ', '活着', '活着']);
  const aliases = ListColumn.from([['Farewell My Concubine'], ['这个杀手不太冷'], [], ['霸王别姬', '活着 ']]);
  const idx = NameIndex.build(names, aliases);
  const keys = idx.keys.toArray();
  assert.deepEqual(keys, ['霸王别姬', 'Leon', '活着', 'Farewell My Concubine', '这个杀手不太冷']);
  const at = (k: string) => idx.find(k);
  assert.deepEqual(idx.named(at('活着')), [2, 3]);
  assert.deepEqual(idx.any(at('霸王别姬')), [0, 3]);
  assert.deepEqual(idx.named(at('霸王别姬')), [0]);
  assert.deepEqual(idx.named(at('这个杀手不太冷')), [], 'alias-only key: no entity is named so');
  assert.deepEqual(idx.any(at('这个杀手不太冷')), [1]);
  assert.equal(idx.find('Ｌｅｏｎ'), -1, 'find is exact');
  assert.equal(idx.resolve('Ｌｅｏｎ'), at('Leon'), 'resolve normalises');
  assert.equal(idx.resolve('不在'), -1);
  assert.equal(idx.check(4), null);
  assert.match(idx.check(2) ?? '', /out of range/);

  // many keys: every key is found through its probe chain, and absent keys end at an empty slot
  const many = Array.from({ length: 3000 }, (_, i) => `名${i}`);
  const big = NameIndex.build(StringTable.from(many), ListColumn.from(many.map(() => [])));
  assert.ok(big.slots.length >= 2 * many.length && (big.slots.length & (big.slots.length - 1)) === 0);
  for (let i = 0; i < many.length; i++) assert.deepEqual(big.named(big.find(many[i])), [i]);
  for (let i = 3000; i < 3100; i++) assert.equal(big.find(`名${i}`), -1);
});

test('NameIndex.find: each slot is tagged when a probe first passes it, a hash whose tag bits are all 0 included', () => {
  const many = Array.from({ length: 3000 }, (_, i) => `名${i}`);
  // 3,001 keys: 12 bits of a slot hold the key, the tag is hash bits 13–31 (util/hash.ts SlotTags)
  let zero = '';
  for (let i = 0; zero === ''; i++) if (hashName(`零${i}`) >>> 13 === 0) zero = `零${i}`;
  const keys = [...many, zero];
  const fresh = () => NameIndex.build(StringTable.from(keys), ListColumn.from(keys.map(() => [])));
  const absent = Array.from({ length: 3000 }, (_, i) => `无${i}`);
  // first lookups: absent words first (they tag the slots their chains pass), then the keys backwards
  const a = fresh();
  for (const w of absent) assert.equal(a.find(w), -1, w);
  for (let k = keys.length - 1; k >= 0; k--) assert.equal(a.find(keys[k]), k, keys[k]);
  // the key with tag bits 0 looked up first, then the rest, then again: the same answers
  const b = fresh();
  assert.equal(b.find(zero), keys.length - 1);
  for (let round = 0; round < 2; round++) {
    keys.forEach((w, k) => assert.equal(b.find(w), k, w));
    for (const w of absent) assert.equal(b.find(w), -1, w);
  }
  assert.equal(b.check(keys.length), null, 'the stored slots are untouched');
  assert.deepEqual([...b.slots].filter((x) => x >= 0).sort((x, y) => x - y), keys.map((_, k) => k));
});

test('hashName: FNV-1a over UTF-16 code units (part of the snapshot format)', () => {
  assert.equal(hashName(''), 0x811c9dc5);
  assert.equal(hashName('a'), 0xe40c292c);
  assert.equal(hashName('长津湖'), hashName('长津湖'));
  assert.notEqual(hashName('长津湖'), hashName('湖津长'));
});
