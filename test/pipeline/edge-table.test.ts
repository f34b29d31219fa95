import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EdgeTable } from '../../src/pipeline/edge-table.js';
import { mulberry32 } from '../../src/util/random.js';

test('EdgeTable: one row per unordered pair, stored low → high; find does not create', () => {
  const t = new EdgeTable(4);
  const e = t.edge(5, 2);
  assert.equal(t.edge(2, 5), e);
  assert.deepEqual([t.source[e], t.target[e]], [2, 5]);
  assert.equal(t.find(5, 2), e);
  assert.equal(t.find(2, 6), -1);
  assert.equal(t.size, 1);
  const self = t.edge(3, 3);
  assert.deepEqual([t.source[self], t.target[self], t.size], [3, 3, 2]);
});

test('EdgeTable: rows, columns and lookups survive growth and rehashing (against a Map)', () => {
  const t = new EdgeTable(1); // capacity 16: grows and rehashes many times
  const ref = new Map<string, number>();
  const rand = mulberry32(7);
  for (let k = 0; k < 5_000; k++) {
    const a = Math.floor(rand() * 300), b = Math.floor(rand() * 300);
    const e = t.edge(a, b);
    t.cooc[e] += 1;
    t.kg[e] = a + b;
    const key = `${Math.min(a, b)},${Math.max(a, b)}`;
    if (!ref.has(key)) ref.set(key, e);
    assert.equal(e, ref.get(key), key);
  }
  assert.equal(t.size, ref.size);
  assert.ok(t.source.length >= t.size);
  let total = 0;
  for (const [key, e] of ref) {
    const [a, b] = key.split(',').map(Number);
    assert.equal(t.find(b, a), e);
    assert.deepEqual([t.source[e], t.target[e], t.kg[e]], [a, b, a + b]);
    total += t.cooc[e];
  }
  assert.equal(total, 5_000, 'every increment landed on its row');
  assert.equal(t.find(300, 301), -1);
});
