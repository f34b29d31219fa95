import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from '../../src/util/canonical-json.js';
import { hashName, hashUnits } from '../../src/util/hash.js';
import { mulberry32 } from '../../src/util/random.js';
import { kthSmallest, lowerBound, orderByKey, sortedHas } from '../../src/util/sorted.js';

test('canonicalJson: keys sorted at every depth, undefined keys left out, arrays kept in order', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } }), '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
  assert.equal(canonicalJson({ x: 1, y: 2 }), canonicalJson({ y: 2, x: 1 }));
  assert.equal(canonicalJson([undefined, null, 'a']), '[null,null,"a"]');
  assert.equal(canonicalJson(undefined), 'null');
  assert.equal(canonicalJson('长津湖'), '"长津湖"');
});

test('hashUnits over code units equals hashName of the string (FNV-1a, 32 bits)', () => {
  const s = '长津湖 2021';
  const units = Uint16Array.from(s, (c) => c.charCodeAt(0));
  assert.equal(hashUnits(units, 0, units.length), hashName(s));
  assert.equal(hashUnits(units, 0, 3), hashName('长津湖'));
  assert.equal(hashName('a'), 0xe40c292c);
});

test('mulberry32: the published sequence for seed 1, same sequence for the same seed', () => {
  const r = mulberry32(1);
  assert.deepEqual([r(), r(), r()], [0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
  const a = mulberry32(42), b = mulberry32(42);
  for (let i = 0; i < 100; i++) {
    const x = a();
    assert.equal(x, b());
    assert.ok(x >= 0 && x < 1);
  }
});

test('orderByKey: indices by ascending key, ties by index, as a comparator sort orders them, at every length around the insertion runs', () => {
  const random = mulberry32(24);
  for (const n of [0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 257, 1000]) {
    for (const distinct of [3, 1000]) {
      const keys = Float64Array.from({ length: n }, () => Math.floor(random() * distinct) / 7 - 0.5);
      const out = new Int32Array(n + 2).fill(-9);
      orderByKey(keys, n, out, new Int32Array(n));
      const expected = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a] - keys[b] || a - b);
      assert.deepEqual(Array.from(out.subarray(0, n)), expected, `n ${n}, ${distinct} distinct keys`);
      assert.deepEqual(Array.from(out.subarray(n)), [-9, -9], 'nothing written past n');
    }
  }
  // infinities and equal keys
  const out = new Int32Array(5);
  orderByKey(Float64Array.of(1, -Infinity, 1, Infinity, 0), 5, out, new Int32Array(5));
  assert.deepEqual(Array.from(out), [1, 4, 0, 2, 3]);
});

test('kthSmallest: the k-th smallest value at every k, with many ties, and by the sort once the partitions run out', () => {
  const random = mulberry32(25);
  for (const n of [1, 2, 3, 10, 100, 367]) {
    for (const distinct of [2, 50, 100000]) {
      const values = Float64Array.from({ length: n }, () => Math.floor(random() * distinct) / 3 - 1);
      const sorted = Float64Array.from(values).sort();
      for (let k = 0; k < n; k += Math.max(1, Math.floor(n / 17))) {
        for (const rounds of [undefined, 0, 1]) {
          const a = Float64Array.from(values);
          assert.equal(kthSmallest(a, n, k, rounds), sorted[k], `n ${n}, ${distinct} distinct, k ${k}, rounds ${rounds}`);
          assert.deepEqual(Float64Array.from(a).sort(), sorted, 'the same values, reordered');
        }
      }
    }
  }
});

test('lowerBound and sortedHas on ascending arrays', () => {
  const a = Int32Array.from([1, 3, 3, 7, 9]);
  assert.deepEqual([0, 1, 2, 3, 4, 8, 9, 10].map((v) => lowerBound(a, v)), [0, 0, 1, 1, 3, 4, 4, 5]);
  assert.equal(lowerBound(a, 3, 2, 5), 2);
  assert.equal(lowerBound(Float64Array.from([0.25, 0.5, 1]), 0.4), 1);
  assert.equal(lowerBound(new Uint8Array(0), 1), 0);
  assert.equal(sortedHas(a, 7), true);
  assert.equal(sortedHas(a, 8), false);
  assert.equal(sortedHas(new Int32Array(0), 0), false);
});
