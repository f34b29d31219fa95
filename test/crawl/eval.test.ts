/**
 * Crawl evaluation metrics (src/crawl/eval.ts, crawler-spec.md §5) on hand-made index lines: harvest
 * rate curve, filter precision / recall / F, target recall, the real-only restriction; and the frontier
 * memory check keeps the frontier at its bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawlMetrics, frontierMemory, harvestCurve, targetSet, type Gold } from '../../src/crawl/eval.js';

const gold: Gold = {
  relevant: new Map([
    ['http://f/1', true],
    ['http://f/2', true],
    ['http://f/3', true],
    ['http://f/4', true],
    ['http://o/1', false],
    ['http://o/2', false],
  ]),
  real: new Set(['http://f/1', 'http://o/1', 'http://o/2']),
};

test('crawlMetrics: HR(t), filter P/R/F against the gold, target recall; real-only counts real pages only', () => {
  const lines = [
    { url: 'http://f/1', relevant: true },
    { url: 'http://o/1', relevant: true },
    { url: 'http://f/2', relevant: false },
    { url: 'http://o/2', relevant: false },
    { url: 'http://x/old', relevant: true, finalUrl: 'http://f/3' },
  ];
  const m = crawlMetrics(lines, gold, new Set(['http://f/3', 'http://f/4']));
  assert.equal(m.fetched, 5);
  assert.equal(m.harvest.final, 3 / 5);
  assert.equal(m.precision, 2 / 3);
  assert.equal(m.recall, 2 / 4);
  assert.equal(m.f1.toFixed(6), ((2 * (2 / 3) * 0.5) / (2 / 3 + 0.5)).toFixed(6));
  assert.equal(m.targetRecall, 0.5, 'the redirect target counts as fetched');
  const real = crawlMetrics(lines, gold, new Set(['http://f/1']), gold.real);
  assert.equal(real.fetched, 3);
  assert.equal(real.harvest.final, 1 / 3);
  assert.equal(real.precision, 1 / 2);
  assert.equal(real.recall, 1);
  assert.equal(real.targetRecall, 1);
  assert.deepEqual(harvestCurve(lines, gold, 2), [{ t: 2, hr: 0.5 }, { t: 4, hr: 0.5 }]);
});

test('targetSet: fixed, excludes the seeds, keeps every real relevant page', () => {
  const t = targetSet(gold, ['http://f/2']);
  assert.ok(t.has('http://f/1'));
  assert.ok(!t.has('http://f/2'));
  assert.ok(!t.has('http://o/1'));
  assert.deepEqual([...targetSet(gold, ['http://f/2'])], [...t]);
});

test('frontierMemory: the frontier stays at its bound whatever the number of URLs discovered', () => {
  const m = frontierMemory(200_000, 5_000);
  assert.equal(m.urls, 200_000);
  assert.ok(m.kept <= 5_000 + 320, `${m.kept} kept`);
  assert.equal(m.kept + m.evicted, 40_000, "20,000 pages, each with its tunnel entry");
});
