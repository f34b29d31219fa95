import { test } from 'node:test';
import assert from 'node:assert/strict';
import { positionBias } from '../../src/pipeline/positions.js';

test('position bias (eq. 7): sums inverse 1-based positions, normalised', () => {
  const occ = { node: Int32Array.from([0, 1, 0]), tokenIndex: Int32Array.from([1, 4, 9]), charStart: Int32Array.from([3, 10, 30]) };
  const all = positionBias(occ, 2, 'allTokens');
  const p0 = 1 / 2 + 1 / 10;
  const p1 = 1 / 5;
  assert.ok(Math.abs(all[0] - p0 / (p0 + p1)) < 1e-12 && Math.abs(all[1] - p1 / (p0 + p1)) < 1e-12);
  const cand = positionBias(occ, 2, 'candidates');
  assert.ok(Math.abs(cand[0] - (1 + 1 / 3) / (1 + 1 / 3 + 1 / 2)) < 1e-12);
  const chars = positionBias(occ, 2, 'chars');
  assert.ok(Math.abs(chars[1] - 1 / 11 / (1 / 4 + 1 / 31 + 1 / 11)) < 1e-12);
  // the paper's example: positions 2, 5, 10 → 0.8 before normalisation
  const single = positionBias({ node: Int32Array.from([0, 0, 0]), tokenIndex: Int32Array.from([1, 4, 9]), charStart: new Int32Array(3) }, 1, 'allTokens');
  assert.equal(single[0], 1);
  assert.deepEqual(Array.from(positionBias({ node: new Int32Array(0), tokenIndex: new Int32Array(0), charStart: new Int32Array(0) }, 2, 'allTokens')), [0, 0]);
});
