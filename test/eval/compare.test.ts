import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRuns, bootstrapMeanCi } from '../../src/eval/compare.js';
import { evaluate } from '../../src/eval/metrics.js';

const gold = [['甲', '乙'], ['丙', '丁'], ['戊']];
const ids = ['a', 'b', 'c'];
const run = (predictions: string[][]) => ({
  predictions,
  result: evaluate(ids.map((id, i) => ({ id, gold: gold[i], predicted: predictions[i] })), { ks: [1, 2] }),
});

test('paired comparison: better/worse/same, mean delta, words gained and lost', () => {
  const a = run([['甲', 'x'], ['丙', '丁'], ['y']]);
  const b = run([['甲', '乙'], ['丙', 'z'], ['y']]);
  const c = compareRuns(ids, gold, a, b, { k: 2 });
  // a: F1@2 = 0.5·… doc a: P 1/2 R 1/2 → 0.5 → b: 1; doc b: 1 → 0.5; doc c: 0 → 0.
  assert.deepEqual([c.better, c.worse, c.same], [1, 1, 1]);
  assert.equal(c.meanDelta, 0);
  assert.deepEqual(c.goldGained, [{ word: '乙', docs: 1 }]);
  assert.deepEqual(c.goldLost, [{ word: '丁', docs: 1 }]);
  assert.deepEqual(c.noiseGained, [{ word: 'z', docs: 1 }]);
  assert.deepEqual(c.noiseLost, [{ word: 'x', docs: 1 }]);
  assert.deepEqual(c.worstDocs, [{ id: 'b', delta: -0.5 }]);
  assert.throws(() => compareRuns(ids, gold, a, b, { k: 5 }), /K=5 was not evaluated/);
});

test('bootstrap interval: deterministic, contains the mean, degenerate for constant values', () => {
  const v = [0.1, -0.2, 0.3, 0, 0.05, 0.2, -0.1, 0.15];
  const ci = bootstrapMeanCi(v, 1000, 7);
  assert.deepEqual(ci, bootstrapMeanCi(v, 1000, 7));
  const mean = v.reduce((x, y) => x + y) / v.length;
  assert.ok(ci[0] < mean && mean < ci[1], `${ci} around ${mean}`);
  const flat = bootstrapMeanCi([0.25, 0.25, 0.25], 100, 1);
  assert.deepEqual(flat, [0.25, 0.25]);
  assert.deepEqual(bootstrapMeanCi([], 100, 1), [0, 0]);
});
