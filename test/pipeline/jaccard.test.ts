import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { intersectionSize, jaccard } from '../../src/pipeline/jaccard.js';
import { sortedHas } from '../../src/util/sorted.js';

const sorted = (xs: number[]) => Int32Array.from([...new Set(xs)].sort((a, b) => a - b));

/** Set-based reference of eq. 8. */
function reference(a: number[], b: number[], endpoints: [number, number] | null, empty: number): number {
  const A = new Set(a);
  const B = new Set(b);
  if (endpoints) for (const e of endpoints) (A.delete(e), B.delete(e));
  const union = new Set([...A, ...B]);
  if (union.size === 0) return empty;
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  return inter / union.size;
}

test('table: empty, identical, disjoint, partial', () => {
  const cases: [number[], number[], number][] = [
    [[], [], 0],
    [[1, 2, 3], [1, 2, 3], 1],
    [[1, 2], [3, 4], 0],
    [[1], [], 0],
    [[1, 2, 3, 4], [3, 4, 5], 2 / 5],
  ];
  for (const [a, b, expected] of cases) assert.equal(jaccard(sorted(a), sorted(b)), expected, `${a} ${b}`);
  assert.equal(jaccard(sorted([]), sorted([]), null, 0.5), 0.5);
  // spec §1.5: sm(伍万里, 长津湖) = 0.2 with A = {易烊千玺, 长津湖}, B = {吴京, 易烊千玺, 战争, 伍万里}
  assert.equal(jaccard(sorted([3, 0]), sorted([2, 3, 5, 4])), 0.2);
  // excluding the endpoints (0 = 长津湖, 4 = 伍万里): A' = {易烊千玺}, B' = {吴京, 易烊千玺, 战争}
  assert.equal(jaccard(sorted([3, 0]), sorted([2, 3, 5, 4]), [4, 0]), 1 / 3);
  // endpoints that are the only members leave both sets empty → `empty`
  assert.equal(jaccard(sorted([1]), sorted([0]), [0, 1], 0.25), 0.25);
});

test('agrees with a Set-based reference (property), linear merge and galloping paths', () => {
  const arb = fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 60 });
  const big = fc.uniqueArray(fc.integer({ min: 0, max: 5000 }), { minLength: 0, maxLength: 2000 });
  fc.assert(
    fc.property(arb, fc.oneof(arb, big), fc.option(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400 }))), (a, b, ends) => {
      const got = jaccard(sorted(a), sorted(b), ends, 0);
      const want = reference(a, b, ends, 0);
      return Math.abs(got - want) < 1e-12;
    }),
    { numRuns: 500 },
  );
});

test('intersectionSize and sortedHas', () => {
  assert.equal(intersectionSize(sorted([1, 5, 9]), sorted([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50]), 5), 2);
  assert.equal(sortedHas(sorted([2, 4, 8]), 4), true);
  assert.equal(sortedHas(sorted([2, 4, 8]), 5), false);
  assert.equal(sortedHas(new Int32Array(0), 0), false);
});

test('hub entities: two 100k-neighbour sets and small vs hub (galloping) give exact values', () => {
  // speed is measured in bench/, never asserted here (a loaded machine made the old time limits flake)
  const a = new Int32Array(100_000);
  const b = new Int32Array(100_000);
  for (let i = 0; i < a.length; i++) {
    a[i] = i * 2;
    b[i] = i * 3;
  }
  // |A ∩ B| = multiples of 6 below 200000 = 33334; |A ∪ B| = 200000 − 33334
  assert.ok(Math.abs(jaccard(a, b) - 33334 / (200000 - 33334)) < 1e-12);
  const small = sorted([6, 7, 600, 199998]);
  assert.equal(jaccard(small, a), 3 / (100000 + 1));
});
