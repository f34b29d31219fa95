import { test } from 'node:test';
import assert from 'node:assert/strict';
import { arena } from '../../src/util/arena.js';

test('arena: consecutive zeroed views of one buffer; asking past its end is a RangeError', () => {
  const buffer = new Int32Array(5);
  const take = arena(buffer);
  const a = take(2);
  const b = take(3);
  assert.deepEqual([Array.from(a), Array.from(b)], [[0, 0], [0, 0, 0]]);
  a[1] = 7;
  b[0] = 9;
  assert.deepEqual(Array.from(buffer), [0, 7, 9, 0, 0]);
  assert.equal(take(0).length, 0);
  assert.throws(() => take(1), RangeError);
});
